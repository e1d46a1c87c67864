//! Why the queueing model cannot be read, evaluated or measured: the one error type of
//! the `queueing` folder, and the rate format its messages share with the reports.

use super::Centre;
use crate::error::LocatedError;

/// Why the model cannot be read, evaluated or measured.
///
/// One type for the whole folder: the values read from flags and files ([`params`]), the
/// model and its simulation, and the fabric measurements all fail into it, so that
/// `orcs queue` handles one kind of error. A saturated point is not a failure of the
/// evaluation: [`sweep::Point::solution`] keeps its [`QueueError::Saturated`].
///
/// [`params`]: super::params
/// [`sweep::Point::solution`]: super::sweep::Point::solution
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueueError {
    /// A parameter is out of range.
    #[error("invalid {name}: {reason}")]
    InvalidParameter {
        /// The parameter, as the user knows it.
        name: String,
        /// What is wrong and what was expected.
        reason: String,
    },
    /// The offered load reaches the capacity of a centre, so its queue has no steady state.
    #[error(
        "the {centre} is saturated: at λ = {rate} messages/s per processor its utilisation is {utilisation:.4} (≥ 1); it sustains λ < {} messages/s per processor",
        rate_text(*limit)
    )]
    Saturated {
        /// The centre with the largest utilisation.
        centre: Centre,
        /// Its utilisation at the offered rate.
        utilisation: f64,
        /// The offered rate λ.
        rate: f64,
        /// The largest rate the centre sustains.
        limit: f64,
    },
    /// The effective-rate fixed point was not found (not expected: the safeguarded
    /// iteration always converges).
    #[error("the effective rate did not converge after {iterations} iterations (last change {change:e})")]
    NoConvergence {
        /// Iterations made.
        iterations: u32,
        /// Last relative change.
        change: f64,
    },
    /// Switch counts could not be taken from the fabric; the message does not name the
    /// fabric, which the caller knows.
    #[error("{0}")]
    Fabric(String),
    /// A name (of a preset, an architecture, a service model …) that is not one of the
    /// accepted values.
    #[error("unknown {kind} '{given}': expected {}", .expected.join(", "))]
    UnknownName {
        /// What was being named.
        kind: &'static str,
        /// The text given.
        given: String,
        /// The accepted names.
        expected: Vec<&'static str>,
    },
    /// A number with an optional unit that could not be read.
    #[error("cannot read '{given}' as {what}: expected {expected}")]
    BadQuantity {
        /// The text given.
        given: String,
        /// What it should be.
        what: &'static str,
        /// The accepted forms.
        expected: &'static str,
    },
    /// A range of a list (`FIRST:LAST:STEP`) is malformed or too long.
    #[error("bad range '{given}': {reason}")]
    BadRange {
        /// The range as given.
        given: String,
        /// What is wrong.
        reason: String,
    },
    /// A parameter file that cannot be used: its path, the line when known, and what was
    /// expected.
    #[error(transparent)]
    File(#[from] LocatedError),
}

/// A rate for people: six significant digits, in scientific notation when small. The
/// saturation message and the reports write rates alike.
pub fn rate_text(rate: f64) -> String {
    if rate == 0.0 || (1e-2..1e9).contains(&rate.abs()) {
        let digits = (5 - rate.abs().log10().floor().max(0.0) as i32).max(0) as usize;
        format!("{rate:.digits$}")
    } else {
        format!("{rate:.5e}")
    }
}

/// The [`QueueError::InvalidParameter`] for `name`.
pub(crate) fn invalid(name: &str, reason: impl Into<String>) -> QueueError {
    QueueError::InvalidParameter {
        name: name.to_string(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_well() {
        assert_eq!(rate_text(86.190661238), "86.1907");
        assert_eq!(rate_text(4.3253771), "4.32538");
        assert_eq!(rate_text(1234.5678), "1234.57");
        assert_eq!(rate_text(0.0), "0.00000");
        assert_eq!(rate_text(1.5e-5), "1.50000e-5");
    }
}
