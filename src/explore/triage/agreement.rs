//! How often the two sides agree: of the calls a run made, counted up to the
//! divergence that stopped each case (with `--baseline`, a case goes on past a
//! known one while the fixtures agree, and the calls after it count), the
//! fraction on which the oracle and the subject read the same at each level. Levels are compared in order, so a
//! call that diverged at `text` agreed at `convention`; a `broken` call agrees at
//! none. It is the figure that says how closely a subject follows the oracle
//! between the points a suite's scenarios sample.

use crate::explore::compare::levels::Level;

/// The calls a run counted and its divergences by level (in `Level::ALL` order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Agreement {
    pub calls: usize,
    pub by_level: [usize; Level::ALL.len()],
}

impl Agreement {
    /// The levels agreement is given at: all but `broken`, which no call
    /// agreeing at any level can have.
    pub(crate) const LEVELS: [Level; 3] = [Level::Convention, Level::Text, Level::Files];

    /// How many calls agreed at `level`: every call but those that diverged at
    /// it or at a level before it.
    pub(crate) fn agreeing(&self, level: Level) -> usize {
        let upto = Level::ALL
            .iter()
            .position(|l| *l == level)
            .unwrap_or(Level::ALL.len() - 1);
        let diverged: usize = self.by_level.iter().take(upto + 1).sum();
        self.calls.saturating_sub(diverged)
    }

    /// The fraction that agreed at `level`; 1 when no call was made (nothing
    /// disagreed).
    pub(crate) fn fraction(&self, level: Level) -> f64 {
        if self.calls == 0 {
            return 1.0;
        }
        self.agreeing(level) as f64 / self.calls as f64
    }

    /// `convention 97.1%, text 90.0%, files 89.9%`.
    pub(crate) fn shown(&self) -> String {
        Self::LEVELS
            .iter()
            .map(|level| format!("{} {}", level.label(), percent(self.fraction(*level))))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A fraction as a percentage with one decimal, rounded, but never to 100.0%
/// while something disagreed nor to 0.0% while something agreed.
fn percent(fraction: f64) -> String {
    let tenths = (fraction * 1000.0).round();
    let tenths = match tenths {
        t if t >= 1000.0 && fraction < 1.0 => 999.0,
        t if t <= 0.0 && fraction > 0.0 => 1.0,
        t => t,
    };
    format!("{:.1}%", tenths / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_agrees_at_the_levels_before_its_divergence() {
        // 1,000 calls: none escaped, 1 broken, 10 at convention, 100 at text, 1 at files.
        let agreement = Agreement {
            calls: 1000,
            by_level: [0, 1, 10, 100, 1],
        };
        assert_eq!(agreement.agreeing(Level::Convention), 989);
        assert_eq!(agreement.agreeing(Level::Text), 889);
        assert_eq!(agreement.agreeing(Level::Files), 888);
        assert_eq!(
            agreement.shown(),
            "convention 98.9%, text 88.9%, files 88.8%"
        );
        let one_off = Agreement {
            calls: 10_000,
            by_level: [0, 0, 0, 0, 1],
        };
        assert_eq!(
            one_off.shown(),
            "convention 100.0%, text 100.0%, files 99.9%"
        );
        assert_eq!(Agreement::default().fraction(Level::Files), 1.0);
        assert_eq!(percent(5.0 / 9.0), "55.6%");
        assert_eq!(percent(1.0 / 100_000.0), "0.1%");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(1.0), "100.0%");
    }
}
