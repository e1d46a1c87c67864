//! The time series and samples a run of a scenario records, and their statistics
//! (time-weighted for series, as PFSim computes them).

/// A piecewise-constant time series: each value holds from its time to the next one's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSeries {
    /// Sample times, strictly increasing.
    pub times: Vec<f64>,
    /// Values.
    pub values: Vec<f64>,
}

impl TimeSeries {
    /// Records `value` at `time` (≥ the last time); a value at the same time replaces it.
    pub fn record(&mut self, time: f64, value: f64) {
        if self.times.last() == Some(&time) {
            *self.values.last_mut().expect("same length") = value;
        } else {
            self.times.push(time);
            self.values.push(value);
        }
    }
}

/// Max, min, mean, count and variance of a series or of samples.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Largest value.
    pub max: f64,
    /// Smallest value.
    pub min: f64,
    /// Mean (time-weighted for series).
    pub mean: f64,
    /// Number of values.
    pub count: u64,
    /// Variance (time-weighted for series; n − 1 for samples).
    pub variance: f64,
}

impl Stats {
    /// Statistics of a series over [0, `horizon`]: the value is 0 before the first
    /// sample and the last one holds until the horizon. With `drop_last` (PFSim) the
    /// last sample is left out and the horizon is the last sample's time. None without
    /// values. O(samples).
    pub(crate) fn of_series(series: &TimeSeries, horizon: f64, drop_last: bool) -> Option<Stats> {
        let n = series.values.len() - usize::from(drop_last && !series.values.is_empty());
        if n == 0 {
            return None;
        }
        let end = if drop_last { series.times[n] } else { horizon };
        if end <= 0.0 {
            return None;
        }
        let span = |i: usize| {
            let next = if i + 1 < n { series.times[i + 1] } else { end };
            (next - series.times[i]).max(0.0)
        };
        let values = &series.values[..n];
        let mean = values
            .iter()
            .enumerate()
            .map(|(i, v)| v * span(i))
            .sum::<f64>()
            / end;
        let lead = series.times[0];
        let variance = (lead * mean * mean
            + values
                .iter()
                .enumerate()
                .map(|(i, v)| (v - mean).powi(2) * span(i))
                .sum::<f64>())
            / end;
        Some(Stats {
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean,
            count: n as u64,
            variance,
        })
    }

    /// Statistics of plain samples (Welford; n − 1 variance, 0 for one sample).
    pub(crate) fn of_samples(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let (mut mean, mut m2) = (0.0f64, 0.0f64);
        for (i, &x) in values.iter().enumerate() {
            let d = x - mean;
            mean += d / (i + 1) as f64;
            m2 += d * (x - mean);
        }
        Some(Stats {
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean,
            count: values.len() as u64,
            variance: if values.len() > 1 {
                m2 / (values.len() - 1) as f64
            } else {
                0.0
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_statistics_by_hand() {
        // 0 until t = 2, then 4 until 5, then 1 until the horizon 10:
        // mean = (4·3 + 1·5) / 10 = 1.7; variance = (2·1.7² + 3·2.3² + 5·0.7²) / 10.
        let mut s = TimeSeries::default();
        s.record(2.0, 9.0);
        s.record(2.0, 4.0); // same time: replaces
        s.record(5.0, 1.0);
        let st = Stats::of_series(&s, 10.0, false).unwrap();
        assert_eq!((st.max, st.min, st.count), (4.0, 1.0, 2));
        assert!((st.mean - 1.7).abs() < 1e-12);
        let var = (2.0 * 1.7f64.powi(2) + 3.0 * 2.3f64.powi(2) + 5.0 * 0.7f64.powi(2)) / 10.0;
        assert!((st.variance - var).abs() < 1e-12);
        // PFSim: the last sample is dropped, the horizon is its time (5): mean 12 / 5.
        let compat = Stats::of_series(&s, 10.0, true).unwrap();
        assert_eq!((compat.count, compat.max, compat.min), (1, 4.0, 4.0));
        assert!((compat.mean - 2.4).abs() < 1e-12);
    }

    #[test]
    fn sample_statistics_by_hand() {
        let st = Stats::of_samples(&[1.0, 2.0, 6.0]).unwrap();
        assert_eq!((st.max, st.min, st.count, st.mean), (6.0, 1.0, 3, 3.0));
        assert!((st.variance - 7.0).abs() < 1e-12);
        assert!(Stats::of_samples(&[]).is_none());
    }
}
