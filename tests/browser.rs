//! The results page in a real headless browser (Debian's `chromium`): the table's
//! rows and columns, a failing cell opened and its diff found, with JavaScript and
//! without it (the page with its script removed), and screenshots at two window widths saved for a person to look at.
//!
//! A `harness = false` binary (libtest-mimic), so that where no browser is
//! installed each test is reported `ignored` with that reason, never passed in
//! silence. `.ci/run` installs `chromium`; `TOOLSPEC_CHROMIUM` names another binary.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// The scenarios on the page: one requirement of boris.
const REQUIREMENT: &str = "boris::cross-tool-error-codes::";
/// A scenario the `wrong-code` deviation breaks.
const BROKEN: &str = "boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file";

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let browser = find_browser();
    let page: Arc<std::sync::OnceLock<Result<Page, String>>> = Arc::default();
    let trial = |name: &str, check: fn(&Path, &Page) -> Result<(), Failed>| {
        let browser = browser.clone();
        let page = Arc::clone(&page);
        Trial::ignorable_test(name, move || {
            let Some(browser) = browser else {
                return Ok(Completion::ignored_with(
                    "no chromium found (install Debian's `chromium`, as .ci/run does, or set TOOLSPEC_CHROMIUM)",
                ));
            };
            let page = page
                .get_or_init(build_page)
                .as_ref()
                .map_err(|e| Failed::from(e.as_str()))?;
            check(&browser, page).map(|()| Completion::Completed)
        })
    };
    let trials = vec![
        trial(
            "browser::with_javascript_the_failures_open_on_their_diff",
            with_javascript,
        ),
        trial(
            "browser::without_javascript_every_row_and_diff_is_there",
            without_javascript,
        ),
    ];
    libtest_mimic::run(&args, trials).exit_code()
}

/// The page under test: two columns (the reference server, honest and with
/// `wrong-code`) over one requirement of boris.
struct Page {
    _dir: tempfile::TempDir,
    index: PathBuf,
    /// How many scenarios the requirement has, and how many `wrong-code` breaks,
    /// read from the mutated run's JSON report.
    scenarios: usize,
    failing: usize,
}

fn build_page() -> Result<Page, String> {
    let exe = env!("CARGO_BIN_EXE_toolspec");
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut reports = Vec::new();
    for (name, mutate) in [("honest", None), ("wrong-code", Some("wrong-code"))] {
        let json = dir.path().join(format!("{name}.json"));
        let mut cmd = Command::new(exe);
        cmd.args([
            "run",
            "--suite",
            "boris",
            "--filter",
            REQUIREMENT,
            "-j",
            "2",
            "--json",
        ])
        .arg(&json)
        .stdout(Stdio::null());
        if let Some(m) = mutate {
            cmd.args(["--mutate", m]);
        }
        cmd.status().map_err(|e| format!("toolspec run: {e}"))?;
        reports.push(json);
    }
    let out = dir.path().join("out");
    let status = Command::new(exe)
        .args(["matrix", "--from-json"])
        .args(&reports)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("toolspec matrix: {e}"))?;
    if !status.success() {
        return Err(format!("toolspec matrix: {status}"));
    }
    let text = std::fs::read_to_string(&reports[1]).map_err(|e| e.to_string())?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let count = |key: &str| report["counts"][key].as_u64().unwrap_or_default() as usize;
    Ok(Page {
        index: out.join("index.html"),
        scenarios: count("PASS") + count("FAIL"),
        failing: count("FAIL"),
        _dir: dir,
    })
}

fn find_browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TOOLSPEC_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Runs the browser headless on `url` with `extra` flags, in a fresh profile, and
/// returns its stdout (the DOM, for `--dump-dom`).
fn browse(browser: &Path, url: &str, extra: &[String]) -> Result<String, Failed> {
    let profile = tempfile::tempdir().map_err(|e| Failed::from(e.to_string()))?;
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Failed::from(format!("cannot start {}: {e}", browser.display())))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text)
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{} did not finish within 120 s", browser.display()).into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader
        .join()
        .map_err(|_| Failed::from("reading the browser's output panicked"))?
        .map_err(|e| Failed::from(e.to_string()))
}

/// The `<tr>` of scenario `id` in a DOM, which must be there.
fn row<'a>(dom: &'a str, id: &str) -> Result<&'a str, Failed> {
    let start = dom
        .find(&format!("data-id=\"{id}\""))
        .ok_or_else(|| format!("no row for {id} in the page"))?;
    let end = dom[start..].find("</tr>").ok_or("a row does not end")? + start;
    Ok(&dom[start..end])
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(what().into())
    }
}

/// The columns and rows every view of the page has.
fn check_table(dom: &str, page: &Page) -> Result<(), Failed> {
    let columns = dom.matches("<th scope=\"col\" class=\"server\">").count();
    check(columns == 2, || {
        format!("{columns} server columns, expected 2")
    })?;
    check(
        dom.contains("<div class=\"name\">reference</div>")
            && dom.contains("<div class=\"name\">reference (wrong-code)</div>"),
        || "the columns are not headed by the servers' names".into(),
    )?;
    let rows = dom.matches("<tr class=\"scenario").count();
    check(rows == page.scenarios, || {
        format!("{rows} scenario rows, expected {}", page.scenarios)
    })
}

/// Where screenshots go: beside the tests' other output, not in the repository.
fn screenshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("results-page-{name}.png"))
}

fn screenshot(browser: &Path, url: &str, name: &str, width: u32) -> Result<(), Failed> {
    let path = screenshot_path(name);
    let _ = std::fs::remove_file(&path);
    let flags = [
        format!("--window-size={width},1000"),
        format!("--screenshot={}", path.display()),
    ];
    browse(browser, url, &flags)?;
    let bytes =
        std::fs::read(&path).map_err(|e| format!("no screenshot {}: {e}", path.display()))?;
    check(bytes.starts_with(b"\x89PNG"), || {
        format!("{} is not a PNG", path.display())
    })?;
    eprintln!("screenshot: {}", path.display());
    Ok(())
}

fn with_javascript(browser: &Path, page: &Page) -> Result<(), Failed> {
    // `#failures` has the page's script tick "failures only" and open every failure.
    let url = format!("file://{}#failures", page.index.display());
    let dom = browse(browser, &url, &["--dump-dom".to_string()])?;
    check_table(&dom, page)?;
    check(!dom.contains("<form id=\"filters\" hidden"), || {
        "the script did not run: the filters are still hidden".into()
    })?;
    let hidden = dom.matches("<tr class=\"scenario hidden\"").count();
    check(hidden == page.scenarios - page.failing, || {
        format!(
            "failures only hides {hidden} rows, expected the {} that pass everywhere",
            page.scenarios - page.failing
        )
    })?;
    let cells = row(&dom, BROKEN)?;
    let fail = cells
        .find("<td class=\"s-fail\"")
        .ok_or_else(|| format!("no FAIL cell: {cells}"))?;
    check(cells[..fail].contains("<td class=\"s-pass\""), || {
        format!("the honest server's cell is not PASS: {cells}")
    })?;
    let failing = &cells[fail..];
    check(
        failing.contains("<details open=\"\"><summary><span class=\"word\">FAIL</span>"),
        || format!("the failing cell is not open: {failing}"),
    )?;
    check(
        failing.contains("<span class=\"ins\">+IO_ERROR⊘ (no newline at end)</span>"),
        || format!("the failing cell has no diff: {failing}"),
    )?;
    screenshot(browser, &url, "wide", 1400)?;
    screenshot(browser, &url, "narrow", 420)
}

fn without_javascript(browser: &Path, page: &Page) -> Result<(), Failed> {
    // Headless Chromium's switches for turning scripts off do not hold for a file
    // page (its script still runs), so the page is loaded with its one script
    // removed: what a reader without JavaScript gets, the <noscript> note aside.
    let html = std::fs::read_to_string(&page.index).map_err(|e| e.to_string())?;
    let start = html.find("<script>").ok_or("the page has no script")?;
    let end = html.find("</script>").ok_or("the script does not end")? + "</script>".len();
    let bare = page.index.with_file_name("index-without-script.html");
    std::fs::write(&bare, format!("{}{}", &html[..start], &html[end..]))
        .map_err(|e| e.to_string())?;
    let url = format!("file://{}#failures", bare.display());
    let dom = browse(browser, &url, &["--dump-dom".to_string()])?;
    check_table(&dom, page)?;
    check(dom.contains("<form id=\"filters\" hidden"), || {
        "the filters show without their script".into()
    })?;
    check(!dom.contains("scenario hidden"), || {
        "a row is hidden without the script".into()
    })?;
    let cells = row(&dom, BROKEN)?;
    check(
        cells.contains("<details><summary><span class=\"word\">FAIL</span>")
            && cells.contains("<span class=\"ins\">+IO_ERROR⊘ (no newline at end)</span>"),
        || format!("without the script the failing cell lacks its FAIL or its diff: {cells}"),
    )?;
    screenshot(browser, &url, "no-javascript", 1000)
}
