//! The programs that fetch a package from its registry and run it (`npx`, `uvx`
//! and their kind): which they are, by name, and for those whose cache a server's
//! view can show, where that cache is and what tells them to use it with no
//! network. One table, read both where a server is isolated (`isolation.rs`) and
//! where its failure to start is explained (`denied.rs`).

use std::path::{Path, PathBuf};

use super::isolation::view_plan::PackageCache;

/// A program that fetches a package (or checks it in its registry) before it runs
/// it, and waits on the network in silence when that is cut.
pub(super) struct PackageRunner {
    /// Its program names (the runner and the package manager it belongs to).
    programs: &'static [&'static str],
    /// Its cache, where a view can show it.
    pub(super) cache: Option<RunnerCache>,
}

/// A runner's cache of the user's: under a view it is shown in the server's private
/// home over an overlay (`view_plan::PackageCache`), so a package cached before
/// starts with no network and nothing the server writes reaches the real cache.
pub(super) struct RunnerCache {
    /// The variable that moves it; else the folder of `XDG_CACHE_HOME` it is in,
    /// where that is set; else where it is in the home (which is also where the
    /// server's runner looks, its `XDG_CACHE_HOME` being `~/.cache`).
    variable: &'static str,
    in_xdg_cache: Option<&'static str>,
    in_home: &'static str,
    /// What tells the runner, with no network, to run what its cache holds.
    pub(super) offline: (&'static str, &'static str),
}

const PACKAGE_RUNNERS: [PackageRunner; 6] = [
    PackageRunner {
        programs: &["npx", "npm"],
        cache: Some(RunnerCache {
            variable: "npm_config_cache",
            in_xdg_cache: None,
            in_home: ".npm",
            offline: ("npm_config_prefer_offline", "true"),
        }),
    },
    PackageRunner {
        programs: &["uvx", "uv"],
        cache: Some(RunnerCache {
            variable: "UV_CACHE_DIR",
            in_xdg_cache: Some("uv"),
            in_home: ".cache/uv",
            offline: ("UV_OFFLINE", "1"),
        }),
    },
    PackageRunner {
        programs: &["pnpm", "pnpx"],
        cache: None,
    },
    PackageRunner {
        programs: &["yarn"],
        cache: None,
    },
    PackageRunner {
        programs: &["bunx", "bun"],
        cache: None,
    },
    PackageRunner {
        programs: &["pipx"],
        cache: None,
    },
];

impl PackageRunner {
    /// The runner `program` is, by its file name.
    pub(super) fn of(program: &Path) -> Option<&'static PackageRunner> {
        let name = program.file_name()?.to_str()?;
        PACKAGE_RUNNERS
            .iter()
            .find(|runner| runner.programs.contains(&name))
    }
}

impl RunnerCache {
    /// Where it is on this machine, and where in the private `home`; `None`
    /// without a home to find it in.
    pub(super) fn in_home(&self, home: &Path) -> Option<PackageCache> {
        let xdg = self
            .in_xdg_cache
            .zip(std::env::var_os("XDG_CACHE_HOME"))
            .map(|(folder, cache_home)| PathBuf::from(cache_home).join(folder));
        let machine = match (std::env::var_os(self.variable), xdg) {
            (Some(moved), _) => PathBuf::from(moved),
            (None, Some(in_xdg)) => in_xdg,
            (None, None) => PathBuf::from(std::env::var_os("HOME")?).join(self.in_home),
        };
        Some(PackageCache {
            machine: std::fs::canonicalize(&machine).unwrap_or(machine),
            private: home.join(self.in_home),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runner_is_known_by_its_file_name_and_only_some_have_a_cache_to_show() {
        let named = |path: &str| PackageRunner::of(Path::new(path));
        assert!(named("/usr/local/bin/npx").is_some_and(|r| r.cache.is_some()));
        assert!(named("uv").is_some_and(|r| r.cache.is_some()));
        assert!(named("/usr/bin/yarn").is_some_and(|r| r.cache.is_none()));
        assert!(named("/usr/bin/npxx").is_none());
        assert!(named("/usr/bin/python3").is_none());
    }
}
