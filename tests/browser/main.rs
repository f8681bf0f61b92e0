//! The results page in a real headless browser (Debian's `chromium`), driven over
//! the DevTools protocol (`cdp.rs`): at phone, tablet, laptop and wide-screen
//! widths, with the page's script on and off, the table's rows and columns are
//! there, the page itself never scrolls sideways (the table scrolls in its own
//! box), a real click on a failing cell's word opens its diff, "failures only"
//! hides the rows that pass, and without the script every failure still opens on
//! its diff. The matrix page, a single run's page (`run --html`) and the history
//! page are measured at 360 and 1280 px: no line of text in their tables is drawn
//! over a line of another cell, before and after a failed cell is opened. With
//! `TOOLSPEC_SCREENSHOTS=1` (as `.ci/run` sets it) a screenshot of each width is
//! saved under the target folder (`results-page-{script,no-script}-WIDTH.png`) for
//! a person to look at; taking them is a third of these tests' time, so a plain
//! `cargo test` leaves them out and a failure says how to get them.
//!
//! A `harness = false` binary (libtest-mimic), so that where no browser is
//! installed each test is reported `ignored` with that reason, never passed in
//! silence. `.ci/run` installs `chromium`; `TOOLSPEC_CHROMIUM` names another binary.
//! The tests are of the deep tier (README, Set up): `cargo test` reports them
//! ignored, and `cargo test --test browser -- --ignored`, as `.ci/run` runs it,
//! runs them.

mod cdp;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;

use cdp::{Browser, BrowserProcess};

/// The window widths the page is checked at: a phone, a tablet, a laptop and a
/// wide screen, in CSS pixels.
const WIDTHS: [u32; 4] = [360, 768, 1280, 1920];
/// The widths every page is measured at for text drawn over text: the narrowest
/// phone the pages promise to read on, and a laptop.
const OVERLAP_WIDTHS: [u32; 2] = [360, 1280];
/// The window's height at every width.
const HEIGHT: u32 = 900;
/// The width from which the whole table must fit beside the page's margins with no
/// scrolling at all (two server columns); below it, the table's own box scrolls.
const FITS_FROM: u32 = 768;

/// The scenarios on the page: boris's error-code requirements, whose names are
/// among the suite's longest ("Error codes are string constants").
const REQUIREMENT: &str = "error-codes";
/// A scenario the `wrong-code` deviation breaks.
const BROKEN: &str = "boris::cross-tool-error-codes::PATH_NOT_FOUND on missing file";

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let binary = find_browser();
    let page: Arc<OnceLock<Result<Page, String>>> = Arc::default();
    let browser = Arc::new(SharedBrowser::default());
    let trial = |name: &str, check: fn(&Arc<BrowserProcess>, &Page) -> Result<(), Failed>| {
        let binary = binary.clone();
        let page = Arc::clone(&page);
        let browser = Arc::clone(&browser);
        Trial::ignorable_test(name, move || {
            let Some(binary) = binary else {
                return Ok(Completion::ignored_with(
                    "no chromium found (install Debian's `chromium`, as .ci/run does, or set TOOLSPEC_CHROMIUM)",
                ));
            };
            // The browser starts while the page is built.
            browser.start(&binary);
            let page = page
                .get_or_init(build_page)
                .as_ref()
                .map_err(|e| Failed::from(e.as_str()))?;
            let process = browser.get().map_err(Failed::from)?;
            check(&process, page)
                .map(|()| Completion::Completed)
                .map_err(|failed| {
                    Failed::from(format!(
                        "{}\n(with {SCREENSHOTS}=1 each width's screenshot is saved in {})",
                        failed.message().unwrap_or("failed"),
                        env!("CARGO_TARGET_TMPDIR")
                    ))
                })
        })
    };
    let trials = vec![
        trial(
            "browser::with_javascript_a_click_opens_a_diff_and_failures_only_filters",
            with_javascript,
        ),
        trial(
            "browser::with_javascript_the_failures_link_opens_every_failure",
            failures_link,
        ),
        trial(
            "browser::without_javascript_every_failure_opens_on_its_diff",
            without_javascript,
        ),
        trial(
            "browser::no_page_draws_text_over_text_at_360_and_1280_px",
            no_text_over_text,
        ),
    ];
    // The deep tier: a plain `cargo test` keeps to its half minute without them,
    // and `cargo test --test browser -- --ignored` (as .ci/run) runs them.
    let trials = trials
        .into_iter()
        .map(|trial| trial.with_ignored_flag(true))
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // The last hold on the browser: dropping it closes it before the process ends.
    drop(browser);
    conclusion.exit_code()
}

/// A browser being started on a thread of its own.
type Starting = std::thread::JoinHandle<Result<Arc<BrowserProcess>, String>>;

/// The one browser process the tests share, started by the first test that runs
/// (so a run that selects none of them starts none) and closed when `main` drops
/// it, after the last test.
#[derive(Default)]
struct SharedBrowser {
    starting: Mutex<Option<Starting>>,
    started: OnceLock<Result<Arc<BrowserProcess>, String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SharedBrowser {
    /// Starts the browser in the background, once.
    fn start(&self, binary: &Path) {
        let mut starting = lock(&self.starting);
        if starting.is_none() && self.started.get().is_none() {
            let binary = binary.to_path_buf();
            *starting = Some(std::thread::spawn(move || BrowserProcess::launch(&binary)));
        }
    }

    /// The started browser, waiting for its start if needed.
    fn get(&self) -> Result<Arc<BrowserProcess>, String> {
        self.started
            .get_or_init(|| match lock(&self.starting).take() {
                Some(start) => start
                    .join()
                    .unwrap_or_else(|_| Err("the browser's start panicked".to_string())),
                None => Err("the browser was not started".to_string()),
            })
            .clone()
    }
}

impl Drop for SharedBrowser {
    /// A start nobody waited for (every test failed before it needed the browser)
    /// is waited for here, so that its browser is closed too.
    fn drop(&mut self) {
        if let Some(start) = lock(&self.starting).take() {
            drop(start.join());
        }
    }
}

/// The page under test: two columns (the reference server, honest and with
/// `wrong-code`) over one requirement of boris.
struct Page {
    _dir: tempfile::TempDir,
    index: PathBuf,
    /// The mutated run's own page (`run --html`).
    single: PathBuf,
    /// The history page of three releases: honest, `wrong-code`, honest.
    history: PathBuf,
    /// How many requirements the page has.
    requirements: usize,
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
        cmd.args(["run", "--suite", "boris", "--filter", REQUIREMENT, "--json"])
            .arg(&json)
            .stdout(Stdio::null());
        if let Some(m) = mutate {
            cmd.args(["--mutate", m]);
            cmd.arg("--html").arg(dir.path().join("single.html"));
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
    let history = dir.path().join("history");
    let status = Command::new(exe)
        .arg("history")
        .arg("--run")
        .arg(format!("1.0={}", reports[0].display()))
        .arg("--run")
        .arg(format!("1.1={}", reports[1].display()))
        .arg("--run")
        .arg(format!("1.2={}", reports[0].display()))
        .arg("--out")
        .arg(&history)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("toolspec history: {e}"))?;
    if !status.success() {
        return Err(format!("toolspec history: {status}"));
    }
    let text = std::fs::read_to_string(&reports[1]).map_err(|e| e.to_string())?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let count = |key: &str| report["counts"][key].as_u64().unwrap_or_default() as usize;
    let requirements: std::collections::BTreeSet<&str> = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["requirement"].as_str())
        .collect();
    Ok(Page {
        index: out.join("index.html"),
        single: dir.path().join("single.html"),
        history: history.join("index.html"),
        requirements: requirements.len(),
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

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(what().into())
    }
}

/// The browser's error as the test's failure.
fn at_width(width: u32) -> impl Fn(String) -> Failed {
    move |e| Failed::from(format!("at {width} px: {e}"))
}

/// A number the page measured.
fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

/// A CSS selector for the row of scenario `id`.
fn row_of(id: &str) -> String {
    format!("tr.scenario[data-id={}]", serde_json::json!(id))
}

/// How many server columns and scenario rows the page has and shows, and its
/// servers' names.
fn check_table(browser: &mut Browser, page: &Page, width: u32) -> Result<(), Failed> {
    let fail = at_width(width);
    let table = browser
        .evaluate(
            "({columns: [...document.querySelectorAll('#matrix thead th.server')]\
                .filter(th => th.checkVisibility()).map(th => th.querySelector('.name').textContent),\
              rows: document.querySelectorAll('#matrix tr.scenario').length,\
              shown: [...document.querySelectorAll('#matrix tr.scenario')].filter(r => r.checkVisibility()).length})",
        )
        .map_err(&fail)?;
    check(
        table["columns"] == serde_json::json!(["reference", "reference (wrong-code)"]),
        || {
            format!(
                "at {width} px: the server columns are {}, expected reference and reference (wrong-code)",
                table["columns"]
            )
        },
    )?;
    check(
        number(&table["rows"]) == page.scenarios as f64
            && number(&table["shown"]) == page.scenarios as f64,
        || {
            format!(
                "at {width} px: {} scenario rows, {} shown; expected {} of each",
                table["rows"], table["shown"], page.scenarios
            )
        },
    )
}

/// The page's intended layout (docs/results-page.md): the page never scrolls
/// sideways, whatever the width, since the table scrolls in its own box; from
/// [`FITS_FROM`] on, the whole table fits in that box. `when` says after what.
fn check_layout(browser: &mut Browser, width: u32, when: &str, whole: bool) -> Result<(), Failed> {
    let layout = browser
        .evaluate(
            "(() => { const box = document.querySelector('.scroll'); const page = document.documentElement;\
              return {page: page.scrollWidth, window: page.clientWidth,\
                      box_right: box.getBoundingClientRect().right, box: box.clientWidth, table: box.scrollWidth,\
                      overflow: getComputedStyle(box).overflowX}; })()",
        )
        .map_err(at_width(width))?;
    check(number(&layout["page"]) <= number(&layout["window"]), || {
        format!(
            "at {width} px, {when}: the page is {} px wide in a {} px window, so it scrolls sideways",
            layout["page"], layout["window"]
        )
    })?;
    check(
        number(&layout["box_right"]) <= number(&layout["window"])
            && matches!(layout["overflow"].as_str(), Some("auto" | "scroll")),
        || {
            format!(
                "at {width} px, {when}: the table's box does not scroll in the window: {layout}"
            )
        },
    )?;
    if whole && width >= FITS_FROM {
        check(number(&layout["table"]) <= number(&layout["box"]), || {
            format!(
                "at {width} px, {when}: the table ({} px) does not fit its box ({} px)",
                layout["table"], layout["box"]
            )
        })?;
    }
    Ok(())
}

/// Whether the diff of the `nth` failing cell is on the screen: the `+` line of
/// what came is rendered, and it says what `wrong-code` answers.
fn diff_shown(browser: &mut Browser, nth: usize) -> Result<(bool, String), String> {
    let seen = browser.evaluate(&format!(
        "(() => {{ const cell = document.querySelectorAll('td.s-fail[data-standing=FAIL]')[{nth}];\
          const ins = cell && cell.querySelector('pre .ins');\
          return [ins !== null && ins.checkVisibility(), cell ? cell.innerText : '']; }})()"
    ))?;
    Ok((
        seen[0] == Value::Bool(true),
        seen[1].as_str().unwrap_or_default().to_string(),
    ))
}

/// Opens the `nth` failing cell with a click on its word and checks its diff
/// shows, where it did not before.
fn click_opens_diff(browser: &mut Browser, width: u32, nth: usize) -> Result<(), Failed> {
    let fail = at_width(width);
    let (before, _) = diff_shown(browser, nth).map_err(&fail)?;
    check(!before, || {
        format!("at {width} px: failing cell {nth}'s diff shows before any click")
    })?;
    browser
        .click("td.s-fail[data-standing=FAIL] summary", nth)
        .map_err(&fail)?;
    let (after, text) = diff_shown(browser, nth).map_err(&fail)?;
    check(after && text.contains("+IO_ERROR"), || {
        format!("at {width} px: a click on failing cell {nth} did not show its diff; the cell reads:\n{text}")
    })
}

/// The overview has the requirement's row with both servers' counts, and a click
/// on the requirement's name follows its link and brings its scenarios into the
/// window.
fn overview_leads_to_rows(browser: &mut Browser, page: &Page, width: u32) -> Result<(), Failed> {
    let fail = at_width(width);
    let counts = browser
        .evaluate("[...document.querySelectorAll('#overview tbody tr')].map(tr => [...tr.cells].map(c => c.innerText.trim()))")
        .map_err(&fail)?;
    let rows = counts.as_array().cloned().unwrap_or_default();
    check(
        rows.len() == page.requirements
            && rows.iter().all(|row| {
                row.as_array().is_some_and(|cells| {
                    cells.len() == 3
                        && cells[1..]
                            .iter()
                            .all(|c| c.as_str().is_some_and(|c| c.ends_with(" passed")))
                })
            }),
        || {
            format!("at {width} px: the overview's rows are {counts}, expected {} requirements with two servers' counts", page.requirements)
        },
    )?;
    browser.evaluate("window.scrollTo(0, 0)").map_err(&fail)?;
    browser.click("#overview tbody a", 0).map_err(&fail)?;
    let shown = browser
        .evaluate(
            "(() => { const r = document.querySelector('#requirement-0 tr.requirement').getBoundingClientRect(); return location.hash === '#requirement-0' && r.top >= 0 && r.top < innerHeight; })()",
        )
        .map_err(&fail)?;
    check(shown == Value::Bool(true), || {
        format!(
            "at {width} px: a click on the overview's requirement did not bring its rows into view"
        )
    })
}

/// The variable that asks for screenshots.
const SCREENSHOTS: &str = "TOOLSPEC_SCREENSHOTS";

/// Where screenshots go: beside the tests' other output, not in the repository;
/// taken only when [`SCREENSHOTS`] asks for them.
fn screenshot(browser: &mut Browser, name: &str) -> Result<(), Failed> {
    if std::env::var_os(SCREENSHOTS).is_none_or(|v| v.is_empty() || v == "0") {
        return Ok(());
    }
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("results-page-{name}.png"));
    browser.screenshot(&path).map_err(Failed::from)?;
    eprintln!("screenshot: {}", path.display());
    Ok(())
}

/// Opens the page at `width` and checks what holds with or without its script:
/// the filters show only with it, the table is whole, nothing overflows.
fn open_at(browser: &mut Browser, page: &Page, width: u32, script: bool) -> Result<(), Failed> {
    let fail = at_width(width);
    browser.resize(width, HEIGHT).map_err(&fail)?;
    browser
        .open(&format!("file://{}", page.index.display()))
        .map_err(&fail)?;
    let filters = browser
        .evaluate("document.getElementById('filters').hidden")
        .map_err(&fail)?;
    check(filters == Value::Bool(!script), || {
        if script {
            format!("at {width} px: the script did not run: the filters are still hidden")
        } else {
            format!("at {width} px: the page's script ran, or the filters show without it")
        }
    })?;
    check_table(browser, page, width)?;
    check_layout(browser, width, "as loaded", true)
}

fn with_javascript(process: &Arc<BrowserProcess>, page: &Page) -> Result<(), Failed> {
    let mut browser = process.page(true).map_err(Failed::from)?;
    for width in WIDTHS {
        let fail = at_width(width);
        open_at(&mut browser, page, width, true)?;
        // The broken scenario: the honest server's cell passes, the other fails.
        let standings = browser
            .evaluate(&format!(
                "[...document.querySelector('{}').querySelectorAll('td')].map(td => td.dataset.standing)",
                row_of(BROKEN).replace('\'', "\\'")
            ))
            .map_err(&fail)?;
        check(standings == serde_json::json!(["PASS", "FAIL"]), || {
            format!("at {width} px: the broken scenario's cells are {standings}, expected PASS and FAIL")
        })?;
        overview_leads_to_rows(&mut browser, page, width)?;
        click_opens_diff(&mut browser, width, 0)?;
        check_layout(&mut browser, width, "with a failure open", false)?;
        screenshot(&mut browser, &format!("script-{width}"))?;

        browser.click("#failures-only", 0).map_err(&fail)?;
        let shown = browser
            .evaluate(
                "({rows: [...document.querySelectorAll('#matrix tr.scenario')].filter(r => r.checkVisibility())\
                    .map(r => r.dataset.failing),\
                  says: document.getElementById('shown').textContent})",
            )
            .map_err(&fail)?;
        let rows = shown["rows"].as_array().cloned().unwrap_or_default();
        check(
            rows.len() == page.failing && rows.iter().all(|f| f == "true"),
            || {
                format!(
                    "at {width} px: failures only shows {} rows ({}), expected the {} failing ones",
                    rows.len(),
                    shown["rows"],
                    page.failing
                )
            },
        )?;
        check(
            shown["says"] == serde_json::json!(format!("{} scenario(s) shown", page.failing)),
            || {
                format!(
                    "at {width} px: the count of rows shown says {}",
                    shown["says"]
                )
            },
        )?;
        check_layout(&mut browser, width, "with failures only", false)?;
        browser.click("#failures-only", 0).map_err(&fail)?;
        levels_filter(&mut browser, width)?;
    }
    Ok(())
}

/// The level drop-down keeps only the rows of the chosen basis, each level has
/// some, and "spec and upstream" brings every row back.
fn levels_filter(browser: &mut Browser, width: u32) -> Result<(), Failed> {
    let fail = at_width(width);
    let mut seen_in_all = 0;
    for level in ["spec", "upstream", ""] {
        let shown = browser
            .evaluate(&format!(
                "(() => {{ const b = document.getElementById('basis'); b.value = '{level}';\
                   b.dispatchEvent(new Event('change'));\
                   const rows = [...document.querySelectorAll('#matrix tr.scenario')];\
                   return {{shown: rows.filter(r => r.checkVisibility()).map(r => r.dataset.basis),\
                            of_level: rows.filter(r => '{level}' === '' || r.dataset.basis === '{level}').length}}; }})()"
            ))
            .map_err(&fail)?;
        let rows = shown["shown"].as_array().cloned().unwrap_or_default();
        let wanted = number(&shown["of_level"]) as usize;
        check(
            wanted > 0
                && rows.len() == wanted
                && rows.iter().all(|b| level.is_empty() || *b == level),
            || {
                format!(
                    "at {width} px: level {level:?} shows {} ({}), expected the {wanted} rows of that level",
                    rows.len(),
                    shown["shown"]
                )
            },
        )?;
        if level.is_empty() {
            check(rows.len() == seen_in_all, || {
                format!(
                    "at {width} px: spec and upstream rows add to {seen_in_all}, all shows {}",
                    rows.len()
                )
            })?;
        } else {
            seen_in_all += rows.len();
        }
    }
    Ok(())
}

fn failures_link(process: &Arc<BrowserProcess>, page: &Page) -> Result<(), Failed> {
    // `#failures` has the page's script tick "failures only" and open every failure.
    let url = format!("file://{}#failures", page.index.display());
    let mut browser = process.page(true).map_err(Failed::from)?;
    let width = 1280;
    browser.resize(width, HEIGHT).map_err(at_width(width))?;
    browser.open(&url).map_err(at_width(width))?;
    let shown = browser
        .evaluate(
            "({rows: [...document.querySelectorAll('#matrix tr.scenario')].filter(r => r.checkVisibility()).length,\
              open: document.querySelectorAll('td.s-fail details[open]').length,\
              ticked: document.getElementById('failures-only').checked})",
        )
        .map_err(at_width(width))?;
    check(
        number(&shown["rows"]) == page.failing as f64
            && number(&shown["open"]) == page.failing as f64
            && shown["ticked"] == Value::Bool(true),
        || {
            format!(
                "#failures shows {} rows with {} cells open (failures only ticked: {}), expected the {} failures, open",
                shown["rows"], shown["open"], shown["ticked"], page.failing
            )
        },
    )?;
    for nth in 0..page.failing {
        let (seen, text) = diff_shown(&mut browser, nth).map_err(at_width(width))?;
        check(seen, || {
            format!("#failures: failure {nth}'s diff is not shown:\n{text}")
        })?;
    }
    Ok(())
}

fn without_javascript(process: &Arc<BrowserProcess>, page: &Page) -> Result<(), Failed> {
    let mut browser = process.page(false).map_err(Failed::from)?;
    for width in WIDTHS {
        let fail = at_width(width);
        open_at(&mut browser, page, width, false)?;
        let failing = browser
            .evaluate("document.querySelectorAll('td.s-fail[data-standing=FAIL]').length")
            .map_err(&fail)?;
        check(number(&failing) == page.failing as f64, || {
            format!(
                "at {width} px: {failing} FAIL cells, expected {}",
                page.failing
            )
        })?;
        for nth in 0..page.failing {
            click_opens_diff(&mut browser, width, nth)?;
        }
        check_layout(&mut browser, width, "with every failure open", false)?;
        screenshot(&mut browser, &format!("no-script-{width}"))?;
    }
    Ok(())
}

/// The lines of text in the page's tables (`#overview`, `#matrix`) that are drawn
/// over a line of another cell, as `text / text` pairs: each visible text node's
/// line boxes, measured with a Range, compared pairwise across cells. The tables'
/// boxes are scrolled back to their start first, where the sticky headers cover
/// nothing.
fn text_drawn_over_text(browser: &mut Browser) -> Result<Vec<String>, String> {
    let found = browser.evaluate(
        "(() => { document.querySelectorAll('.scroll, .overview-box').forEach(b => b.scrollTo(0, 0));\
          const boxes = [];\
          for (const table of document.querySelectorAll('#overview, #matrix')) {\
            const walk = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);\
            for (let node = walk.nextNode(); node; node = walk.nextNode()) {\
              const text = node.textContent.trim(); const el = node.parentElement;\
              if (!text || !el.checkVisibility()) continue;\
              const cell = el.closest('td, th, caption'); const range = document.createRange();\
              range.selectNodeContents(node);\
              for (const r of range.getClientRects()) {\
                if (r.width >= 1 && r.height >= 1) boxes.push({cell, r, text: text.slice(0, 48)}); } } }\
          const over = [];\
          for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {\
            const a = boxes[i], b = boxes[j]; if (a.cell === b.cell) continue;\
            const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);\
            const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);\
            if (w > 1 && h > 1) over.push(a.text + ' / ' + b.text); }\
          return {over, boxes: boxes.length}; })()",
    )?;
    let boxes = number(&found["boxes"]);
    if boxes.is_nan() || boxes < 10.0 {
        return Err(format!("only {boxes} lines of text measured in the tables: the selectors found nothing to check"));
    }
    Ok(found["over"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect())
}

/// Every page (the matrix, a single run's, the history) at [`OVERLAP_WIDTHS`]:
/// the page does not scroll sideways, no text of its tables is drawn over
/// another's, and a click on a failed cell opens its diff without drawing it over
/// anything either.
fn no_text_over_text(process: &Arc<BrowserProcess>, page: &Page) -> Result<(), Failed> {
    let mut browser = process.page(true).map_err(Failed::from)?;
    for (name, file) in [
        ("matrix", &page.index),
        ("single run", &page.single),
        ("history", &page.history),
    ] {
        for width in OVERLAP_WIDTHS {
            let fail = |e: String| Failed::from(format!("{name} page at {width} px: {e}"));
            browser.resize(width, HEIGHT).map_err(fail)?;
            browser
                .open(&format!("file://{}", file.display()))
                .map_err(fail)?;
            check_layout(&mut browser, width, &format!("{name} page"), false)?;
            let over = text_drawn_over_text(&mut browser).map_err(fail)?;
            check(over.is_empty(), || {
                format!("{name} page at {width} px: text drawn over text: {over:?}")
            })?;
            let (before, _) = diff_shown(&mut browser, 0).map_err(fail)?;
            browser
                .click("td.s-fail[data-standing=FAIL] summary", 0)
                .map_err(fail)?;
            let (after, text) = diff_shown(&mut browser, 0).map_err(fail)?;
            check(!before && after && text.contains("+IO_ERROR"), || {
                format!("{name} page at {width} px: a click on a failed cell did not open its diff; the cell reads:\n{text}")
            })?;
            let over = text_drawn_over_text(&mut browser).map_err(fail)?;
            check(over.is_empty(), || {
                format!("{name} page at {width} px, a failure open: text drawn over text: {over:?}")
            })?;
            screenshot(&mut browser, &format!("{}-{width}", name.replace(' ', "-")))?;
        }
    }
    Ok(())
}
