//! What limits a run: its time split into shares, and the table of rules that names the
//! class (the first rule whose conditions all hold), replaceable by the user's own.

use super::ReplayError;
use crate::error::LocatedError;
use serde::Deserialize;

/// The shares of a replayed run time T (each a fraction of T; they sum to 1).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Shares {
    /// Computation (on the critical path, up to the ranks' mean).
    pub computation: f64,
    /// Load imbalance: the computation on the critical path beyond the ranks' mean.
    pub imbalance: f64,
    /// Message latency (α).
    pub latency: f64,
    /// Moving bytes (β), contention included.
    pub bandwidth: f64,
    /// The part of `bandwidth` spent sharing links with other messages (on a fabric).
    pub contention: f64,
}

/// A quantity a condition can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantity {
    Computation,
    Imbalance,
    Latency,
    Bandwidth,
    /// The part of the bandwidth time spent sharing links.
    Contention,
    /// Bandwidth − contention: moving bytes at full bandwidth.
    Wire,
    /// Latency + bandwidth.
    Communication,
}

impl Quantity {
    const NAMES: [(&'static str, Quantity); 7] = [
        ("computation", Quantity::Computation),
        ("imbalance", Quantity::Imbalance),
        ("latency", Quantity::Latency),
        ("bandwidth", Quantity::Bandwidth),
        ("contention", Quantity::Contention),
        ("wire", Quantity::Wire),
        ("communication", Quantity::Communication),
    ];

    fn of(self, s: &Shares) -> f64 {
        match self {
            Quantity::Computation => s.computation,
            Quantity::Imbalance => s.imbalance,
            Quantity::Latency => s.latency,
            Quantity::Bandwidth => s.bandwidth,
            Quantity::Contention => s.contention,
            Quantity::Wire => s.bandwidth - s.contention,
            Quantity::Communication => s.latency + s.bandwidth,
        }
    }
}

/// `coefficient × quantity`, or a constant when there is no quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Term {
    coefficient: f64,
    quantity: Option<Quantity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    AtLeast,
    Above,
    AtMost,
    Below,
}

/// `sum comparison sum`, e.g. `latency >= 2 * bandwidth`.
#[derive(Debug, Clone, PartialEq)]
struct Condition {
    left: Vec<Term>,
    comparison: Comparison,
    right: Vec<Term>,
}

fn value(sum: &[Term], s: &Shares) -> f64 {
    sum.iter()
        .map(|t| t.coefficient * t.quantity.map_or(1.0, |q| q.of(s)))
        .sum()
}

impl Condition {
    fn holds(&self, s: &Shares) -> bool {
        let (l, r) = (value(&self.left, s), value(&self.right, s));
        match self.comparison {
            Comparison::AtLeast => l >= r,
            Comparison::Above => l > r,
            Comparison::AtMost => l <= r,
            Comparison::Below => l < r,
        }
    }
}

/// One rule: a class and the conditions (all must hold) that give it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The class it names.
    pub class: String,
    /// The conditions as written.
    pub when: Vec<String>,
    conditions: Vec<Condition>,
}

impl Rule {
    /// The rule as one line: `latency-bound if latency >= 2 * bandwidth and latency >= 0.1`.
    pub fn describe(&self) -> String {
        if self.when.is_empty() {
            format!("{} otherwise", self.class)
        } else {
            format!("{} if {}", self.class, self.when.join(" and "))
        }
    }
}

/// The rules, tried in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// The rules.
    pub rules: Vec<Rule>,
}

/// The default table. The thresholds are the ones the method is known for (90 %, 25 %,
/// 10 %, 5 % and a factor of 2); which threshold decides which class is this table's
/// choice, and the README states it.
pub const DEFAULT_RULES: &str = r#"# What limits a run, from the shares of its replayed time (fractions of it):
# computation, imbalance, latency, bandwidth, communication (= latency + bandwidth),
# and on a fabric the two parts of bandwidth: wire (moving bytes at full bandwidth) and
# contention (waiting for links other messages use; 0 without a fabric).
# The first rule whose conditions all hold names the class.

[[rule]]
class = "computation-bound"
when = ["computation >= 0.9"]

[[rule]]
class = "load-imbalance-bound"
when = ["imbalance >= 0.25"]

[[rule]]
class = "latency-bound"
when = ["latency >= 0.1", "latency >= 2 * bandwidth"]

[[rule]]
class = "contention-bound"
when = ["contention >= 0.1", "contention >= wire", "contention >= 2 * latency"]

[[rule]]
class = "bandwidth-bound"
when = ["bandwidth >= 0.1", "bandwidth >= 2 * latency"]

[[rule]]
class = "communication-bound"
when = ["communication >= 0.1", "latency >= 0.05", "bandwidth >= 0.05"]

[[rule]]
class = "computation-bound"
when = []
"#;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    rule: Vec<RuleEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    class: String,
    #[serde(default)]
    when: Vec<String>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::parse("default rules", DEFAULT_RULES).expect("the default rules parse")
    }
}

impl Rules {
    /// Reads a rules file `path` with content `text` (the format of [`DEFAULT_RULES`]).
    /// Errors name the file, and the line when TOML gives one.
    pub fn parse(path: &str, text: &str) -> Result<Rules, ReplayError> {
        let file: RulesFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() as u32 + 1);
            ReplayError::Input(LocatedError::at(path, line, e.message().to_string()))
        })?;
        let rules = file
            .rule
            .into_iter()
            .map(|entry| {
                let conditions = entry
                    .when
                    .iter()
                    .map(|w| parse_condition(w))
                    .collect::<Result<_, _>>()
                    .map_err(|message| {
                        ReplayError::Input(LocatedError::new(
                            path,
                            format!("rule '{}': {message}", entry.class),
                        ))
                    })?;
                Ok(Rule {
                    class: entry.class,
                    when: entry.when,
                    conditions,
                })
            })
            .collect::<Result<Vec<_>, ReplayError>>()?;
        Ok(Rules { rules })
    }

    /// The index of the first rule whose conditions all hold, if any.
    pub fn classify(&self, shares: &Shares) -> Option<usize> {
        self.rules
            .iter()
            .position(|r| r.conditions.iter().all(|c| c.holds(shares)))
    }
}

/// Reads `sum op sum` where a sum is `term + term …`, a term `number`, `name` or
/// `number * name`, and op one of `>=`, `>`, `<=`, `<`.
fn parse_condition(text: &str) -> Result<Condition, String> {
    let ops = [
        (">=", Comparison::AtLeast),
        ("<=", Comparison::AtMost),
        (">", Comparison::Above),
        ("<", Comparison::Below),
    ];
    let (at, op, comparison) = ops
        .iter()
        .filter_map(|&(op, c)| text.find(op).map(|i| (i, op, c)))
        .min_by_key(|&(i, op, _)| (i, std::cmp::Reverse(op.len())))
        .ok_or_else(|| format!("'{text}': expected a comparison (>=, >, <= or <)"))?;
    let left = parse_sum(&text[..at]).map_err(|e| format!("'{text}': {e}"))?;
    let right = parse_sum(&text[at + op.len()..]).map_err(|e| format!("'{text}': {e}"))?;
    Ok(Condition {
        left,
        comparison,
        right,
    })
}

fn parse_sum(text: &str) -> Result<Vec<Term>, String> {
    text.split('+').map(parse_term).collect()
}

fn parse_term(text: &str) -> Result<Term, String> {
    let names = || {
        Quantity::NAMES
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let quantity = |name: &str| {
        Quantity::NAMES
            .iter()
            .find(|(n, _)| *n == name.trim())
            .map(|(_, q)| *q)
            .ok_or_else(|| {
                format!(
                    "'{}' is neither a number nor one of {}",
                    name.trim(),
                    names()
                )
            })
    };
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match text.split_once('*') {
        Some((c, q)) => Ok(Term {
            coefficient: number(c).ok_or_else(|| format!("'{}' is not a number", c.trim()))?,
            quantity: Some(quantity(q)?),
        }),
        None => match number(text) {
            Some(c) => Ok(Term {
                coefficient: c,
                quantity: None,
            }),
            None => Ok(Term {
                coefficient: 1.0,
                quantity: Some(quantity(text)?),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(c: f64, i: f64, l: f64, b: f64) -> Shares {
        Shares {
            computation: c,
            imbalance: i,
            latency: l,
            bandwidth: b,
            contention: 0.0,
        }
    }

    fn class(s: Shares) -> String {
        let rules = Rules::default();
        rules.rules[rules.classify(&s).unwrap()].class.clone()
    }

    #[test]
    fn the_default_rules_name_each_class_where_it_is_clear() {
        assert_eq!(class(shares(0.95, 0.03, 0.01, 0.01)), "computation-bound");
        assert_eq!(class(shares(0.6, 0.3, 0.05, 0.05)), "load-imbalance-bound");
        assert_eq!(class(shares(0.3, 0.1, 0.5, 0.1)), "latency-bound");
        assert_eq!(class(shares(0.3, 0.1, 0.1, 0.5)), "bandwidth-bound");
        assert_eq!(class(shares(0.3, 0.1, 0.3, 0.3)), "communication-bound");
        // Nothing stands out: the remainder is computation.
        assert_eq!(class(shares(0.8, 0.12, 0.04, 0.04)), "computation-bound");
    }

    #[test]
    fn thresholds_are_inclusive_and_the_first_matching_rule_wins() {
        assert_eq!(class(shares(0.9, 0.1, 0.0, 0.0)), "computation-bound");
        assert_eq!(class(shares(0.5, 0.25, 0.25, 0.0)), "load-imbalance-bound");
        // Latency exactly twice bandwidth is latency-bound.
        assert_eq!(class(shares(0.4, 0.0, 0.4, 0.2)), "latency-bound");
        let rules = Rules::default();
        assert_eq!(rules.classify(&shares(0.4, 0.0, 0.4, 0.2)), Some(2));
        assert_eq!(
            rules.rules[2].describe(),
            "latency-bound if latency >= 0.1 and latency >= 2 * bandwidth"
        );
        assert_eq!(rules.rules[6].describe(), "computation-bound otherwise");
    }

    #[test]
    fn contention_names_the_class_when_it_is_most_of_the_bandwidth_time() {
        let on_fabric = |c: f64, l: f64, b: f64, contention: f64| Shares {
            contention,
            ..shares(c, 0.0, l, b)
        };
        assert_eq!(class(on_fabric(0.3, 0.1, 0.6, 0.4)), "contention-bound");
        // Contention equal to the wire time is enough; less is bandwidth-bound.
        assert_eq!(class(on_fabric(0.3, 0.1, 0.6, 0.3)), "contention-bound");
        assert_eq!(class(on_fabric(0.3, 0.1, 0.6, 0.2)), "bandwidth-bound");
        // Below 10 % of the time it does not count.
        assert_eq!(class(on_fabric(0.3, 0.52, 0.18, 0.09)), "latency-bound");
        let c = parse_condition("wire + contention >= 0.6").unwrap();
        assert!(c.holds(&on_fabric(0.3, 0.1, 0.6, 0.4)));
        assert!(!c.holds(&on_fabric(0.3, 0.1, 0.5, 0.4)));
    }

    #[test]
    fn conditions_read_sums_products_and_every_comparison() {
        let c = parse_condition("latency + 0.5 * bandwidth > 0.3").unwrap();
        assert!(c.holds(&shares(0.0, 0.0, 0.2, 0.25)));
        assert!(!c.holds(&shares(0.0, 0.0, 0.2, 0.15)));
        let c = parse_condition("communication <= imbalance").unwrap();
        assert!(c.holds(&shares(0.0, 0.5, 0.2, 0.3)));
        assert!(!c.holds(&shares(0.0, 0.4, 0.2, 0.3)));
        let c = parse_condition("computation < 0.5").unwrap();
        assert!(c.holds(&shares(0.4, 0.0, 0.0, 0.0)));
        assert!(!c.holds(&shares(0.5, 0.0, 0.0, 0.0)));
        for bad in [
            "latency",
            "latancy >= 1",
            "2 * 3 >= latency",
            "x * latency > 0",
        ] {
            assert!(parse_condition(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_users_table_replaces_the_default_and_errors_are_located() {
        let rules = Rules::parse(
            "r.toml",
            "[[rule]]\nclass = \"slow network\"\nwhen = [\"communication > 0.5\"]\n",
        )
        .unwrap();
        assert_eq!(rules.classify(&shares(0.4, 0.0, 0.3, 0.3)), Some(0));
        assert_eq!(rules.classify(&shares(0.6, 0.0, 0.2, 0.2)), None);
        let bad = Rules::parse("r.toml", "[[rule]]\nclass = 3\n").unwrap_err();
        assert!(bad.to_string().starts_with("r.toml:2"), "{bad}");
        let bad = Rules::parse(
            "r.toml",
            "[[rule]]\nclass = \"x\"\nwhen = [\"speed > 1\"]\n",
        )
        .unwrap_err();
        assert!(bad.to_string().contains("'speed'"), "{bad}");
    }
}
