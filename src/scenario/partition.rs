//! `--partition count:K/N` and `hash:K/N`: one shard of the selected scenarios, so a
//! suite (or a matrix of suites and servers) splits across CI machines the way
//! nextest splits tests, and `toolspec report merge` joins the shards' reports.

use std::fmt;
use std::str::FromStr;

/// Which shard of the selected scenarios to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Partition {
    /// The K-th of N shards by position: the i-th selected scenario (counting from
    /// 0 across the selected suites, in order) goes to shard `i % N + 1`. Shards stay
    /// even, but adding a scenario moves the ones after it.
    Count { shard: u32, of: u32 },
    /// The K-th of N shards by the scenario id's hash: a scenario stays in its shard
    /// whatever else is added, at the price of less even shards.
    Hash { shard: u32, of: u32 },
}

impl Partition {
    /// How the run was split (`count` or `hash`) and into how many shards, and
    /// which shard this is: shards of one run agree on the first two.
    pub(crate) fn parts(&self) -> (&'static str, u32, u32) {
        match *self {
            Partition::Count { shard, of } => ("count", shard, of),
            Partition::Hash { shard, of } => ("hash", shard, of),
        }
    }

    /// Whether the scenario `id`, the `position`-th selected one, is in this shard.
    pub(crate) fn admits(&self, position: usize, id: &str) -> bool {
        match *self {
            Partition::Count { shard, of } => {
                position as u64 % u64::from(of) == u64::from(shard - 1)
            }
            Partition::Hash { shard, of } => {
                fnv1a(id.as_bytes()) % u64::from(of) == u64::from(shard - 1)
            }
        }
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and every build, which
/// the standard library's hasher does not promise, so the shards of one run made on
/// different machines never overlap.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let usage = || format!("`{text}`: expected count:K/N or hash:K/N, with 1 <= K <= N");
        let (kind, shard) = text.split_once(':').ok_or_else(usage)?;
        let (k, n) = shard.split_once('/').ok_or_else(usage)?;
        let (shard, of): (u32, u32) = (
            k.trim().parse().map_err(|_| usage())?,
            n.trim().parse().map_err(|_| usage())?,
        );
        if shard == 0 || shard > of {
            return Err(usage());
        }
        match kind {
            "count" => Ok(Partition::Count { shard, of }),
            "hash" => Ok(Partition::Hash { shard, of }),
            _ => Err(usage()),
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Partition::Count { shard, of } => write!(f, "count:{shard}/{of}"),
            Partition::Hash { shard, of } => write!(f, "hash:{shard}/{of}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_is_in_exactly_one_shard() {
        let ids: Vec<String> = (0..50).map(|i| format!("s::f::scenario {i}")).collect();
        for kind in ["count", "hash"] {
            let shards: Vec<Partition> = (1..=3)
                .map(|k| format!("{kind}:{k}/3").parse().expect("partition"))
                .collect();
            for (i, id) in ids.iter().enumerate() {
                let homes = shards.iter().filter(|p| p.admits(i, id)).count();
                assert_eq!(homes, 1, "{kind}: {id} is in {homes} shards");
            }
        }
        let first: Partition = "count:1/3".parse().expect("partition");
        assert_eq!((0..50).filter(|i| first.admits(*i, "")).count(), 17);
    }

    #[test]
    fn malformed_partitions_are_refused_with_the_form() {
        for bad in [
            "count:0/2",
            "count:3/2",
            "hash:1",
            "slice:1/2",
            "count:a/b",
            "1/2",
        ] {
            let why = bad.parse::<Partition>().expect_err(bad);
            assert!(why.contains("expected count:K/N or hash:K/N"), "{why}");
        }
        assert_eq!(
            "hash:2/4".parse::<Partition>().expect("ok").to_string(),
            "hash:2/4"
        );
    }
}
