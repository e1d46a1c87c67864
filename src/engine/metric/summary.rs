//! Per-run summaries: mean, spread, range and a 95 % confidence interval of the mean
//! (Student's t) of each per-run value of an outcome, so every output can say whether
//! `-n` runs were enough.

use crate::engine::unit::SimOutcome;
use crate::engine::weighted::WeightedOutcome;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean, spread and a 95 % confidence interval of the mean of per-run values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one value).
    pub sd: f64,
    /// Population variance (n in the denominator), as ORCS prints it.
    pub population_variance: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Lower end of the 95 % confidence interval of the mean (Student's t).
    pub ci95_low: f64,
    /// Upper end of the 95 % confidence interval of the mean.
    pub ci95_high: f64,
}

impl Summary {
    /// Summarises `values` (accumulated in the given order, so the result is
    /// reproducible). `None` for an empty slice.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let ss = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
        let sd = if values.len() > 1 {
            (ss / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        let half = if values.len() > 1 {
            let t = StudentsT::new(0.0, 1.0, n - 1.0)
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::NAN);
            t * sd / n.sqrt()
        } else {
            0.0
        };
        Some(Summary {
            n: values.len() as u64,
            mean,
            sd,
            population_variance: ss / n,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ci95_low: mean - half,
            ci95_high: mean + half,
        })
    }

    /// [`Summary::of`] the values that are defined: NaN marks a run without a value (a
    /// run without traffic has no bandwidth) and is left out.
    pub(crate) fn of_defined(values: &[f64]) -> Option<Summary> {
        Summary::of(
            &values
                .iter()
                .copied()
                .filter(|x| !x.is_nan())
                .collect::<Vec<_>>(),
        )
    }

    /// [`Summary::of`] integer counts.
    pub(crate) fn of_counts(values: &[u64]) -> Option<Summary> {
        Summary::of(&values.iter().map(|&x| x as f64).collect::<Vec<_>>())
    }

    /// Half-width of the 95 % confidence interval.
    pub(crate) fn ci95_half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }
}

/// Summaries of every per-run value of a unit-message simulation (the `summary` of its
/// JSON document, written and read back, and the one-line summary on standard error).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summaries {
    /// hist_acc_band per-run values (runs without pairs left out).
    pub acc_band: Option<Summary>,
    /// sum_max_cong per-run values.
    pub sum_max_cong: Option<Summary>,
    /// dep_max_delay per-run values, when computed.
    pub dep_max_delay: Option<Summary>,
    /// Pairs per run.
    pub pairs_per_run: Option<Summary>,
}

impl Summaries {
    /// Summarises an outcome.
    pub fn of(outcome: &SimOutcome) -> Self {
        Summaries {
            acc_band: Summary::of_defined(&outcome.acc_band),
            sum_max_cong: Summary::of_counts(&outcome.sum_max_cong),
            dep_max_delay: Summary::of_counts(&outcome.dep_max_delay),
            pairs_per_run: Summary::of_counts(&outcome.pairs),
        }
    }
}

/// Summaries of the per-run values of a byte-weighted (`-p matrix`) simulation (runs
/// without a value left out).
#[derive(Debug, Clone, Serialize)]
pub struct MatrixSummaries {
    /// Largest link load in bytes.
    pub max_load: Option<Summary>,
    /// Largest bytes ÷ capacity.
    pub max_utilisation: Option<Summary>,
    /// Standard deviation of bytes ÷ capacity over the links.
    pub utilisation_sd: Option<Summary>,
    /// Largest number of rank pairs on a link.
    pub max_flows: Option<Summary>,
    /// Byte-weighted bandwidth fraction, when computed.
    pub acc_band: Option<Summary>,
}

impl MatrixSummaries {
    /// Summarises an outcome.
    pub fn of(o: &WeightedOutcome) -> Self {
        MatrixSummaries {
            max_load: Summary::of_counts(&o.max_load),
            max_utilisation: Summary::of_defined(&o.max_utilisation),
            utilisation_sd: Summary::of_defined(&o.utilisation_sd),
            max_flows: Summary::of_counts(&o.max_flows),
            acc_band: Summary::of_defined(&o.acc_band),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_matches_hand_computation() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.population_variance, 1.25);
        // t(0.975, 3) = 3.182446305...
        let half = 3.182_446_305_284_263 * s.sd / 2.0;
        assert!((s.ci95_half_width() - half).abs() < 1e-9);
        assert_eq!((s.min, s.max), (1.0, 4.0));
        let one = Summary::of(&[0.5]).unwrap();
        assert_eq!((one.sd, one.ci95_low, one.ci95_high), (0.0, 0.5, 0.5));
    }

    #[test]
    fn undefined_values_are_left_out() {
        let s = Summary::of_defined(&[f64::NAN, 1.0, 3.0]).unwrap();
        assert_eq!((s.n, s.mean), (2, 2.0));
        assert_eq!(Summary::of_defined(&[f64::NAN]), None);
    }
}
