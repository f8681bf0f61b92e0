//! A small client of the Chrome DevTools Protocol over `--remote-debugging-pipe`,
//! so the test can click, measure the layout and take screenshots in a real page:
//! the browser reads commands from its fd 3 and writes answers and events to its
//! fd 4, one JSON message each, ended by a NUL byte. `sh` moves the child's stdin
//! and stdout there, so no websocket client and no unsafe `pre_exec` is needed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// How long one command may take before the test gives up on the browser.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The commands sent and not yet answered, each with where its answer goes.
type Waiting = Arc<Mutex<HashMap<u64, Sender<Value>>>>;

/// One headless browser process, which every test shares: each opens a page
/// (a tab, with a protocol session of its own) in it. A browser's start is most
/// of what a test of one page costs (about 0.8 s of CPU here), so one start
/// serves them all; the pages are as separate as two tabs are.
pub(crate) struct BrowserProcess {
    child: Mutex<Child>,
    commands: Mutex<ChildStdin>,
    waiting: Waiting,
    next_id: AtomicU64,
    _profile: tempfile::TempDir,
}

/// One page of a [`BrowserProcess`]; it is closed when dropped.
pub(crate) struct Browser {
    process: Arc<BrowserProcess>,
    session: String,
    target: Value,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl BrowserProcess {
    /// Starts `binary` headless in a fresh profile.
    pub(crate) fn launch(binary: &Path) -> Result<Arc<BrowserProcess>, String> {
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>/dev/null"#)
            .arg(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let commands = child.stdin.take().ok_or("no pipe to the browser")?;
        let answers = child.stdout.take().ok_or("no pipe from the browser")?;
        let waiting: Waiting = Arc::default();
        let routes = Arc::clone(&waiting);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(answers);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if message.last() == Some(&0) {
                            message.pop();
                        }
                        let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                            continue;
                        };
                        // Events have no id, and no test waits for one.
                        let Some(id) = value["id"].as_u64() else {
                            continue;
                        };
                        if let Some(answer) = lock(&routes).remove(&id) {
                            let _ = answer.send(value);
                        }
                    }
                }
            }
            // The browser is gone: every command still waiting learns it at once.
            lock(&routes).clear();
        });
        Ok(Arc::new(BrowserProcess {
            child: Mutex::new(child),
            commands: Mutex::new(commands),
            waiting,
            next_id: AtomicU64::new(0),
            _profile: profile,
        }))
    }

    /// Opens a page of its own, with the page's own scripts on or off.
    pub(crate) fn page(self: &Arc<Self>, scripts: bool) -> Result<Browser, String> {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }))?;
        let target_id = target["targetId"].clone();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("attaching to the page gave no session")?
            .to_string();
        let mut page = Browser {
            process: Arc::clone(self),
            session,
            target: target_id,
        };
        page.call(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": !scripts }),
        )?;
        Ok(page)
    }

    /// Sends `method` (to a page's `session`, or to the browser) and returns its
    /// result.
    fn call(&self, session: Option<&str>, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let (answer, answered) = mpsc::channel();
        lock(&self.waiting).insert(id, answer);
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        let sent = {
            let mut commands = lock(&self.commands);
            commands.write_all(&bytes).and_then(|()| commands.flush())
        };
        if let Err(e) = sent {
            lock(&self.waiting).remove(&id);
            return Err(format!("{method}: the browser's pipe: {e}"));
        }
        let answer = answered
            .recv_timeout(ANSWER_WITHIN)
            .map_err(|_| format!("{method}: no answer from the browser within 60 s"));
        lock(&self.waiting).remove(&id);
        let answer = answer?;
        if let Some(error) = answer.get("error") {
            return Err(format!("{method}: {error}"));
        }
        Ok(answer["result"].clone())
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        let _ = self.call(None, "Browser.close", json!({}));
        let mut child = lock(&self.child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Browser {
    /// Sends `method` to this page and returns its result.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.process.call(Some(&self.session), method, params)
    }

    /// Opens `url` and waits until the document has loaded.
    pub(crate) fn open(&mut self, url: &str) -> Result<(), String> {
        self.call("Page.navigate", json!({ "url": url }))?;
        let deadline = Instant::now() + ANSWER_WITHIN;
        while self.evaluate("document.readyState")? != json!("complete") {
            if Instant::now() > deadline {
                return Err(format!("{url} did not finish loading within 60 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// The value of the JavaScript expression `expression` in the page (the
    /// protocol's own evaluation, which works with the page's scripts off).
    pub(crate) fn evaluate(&mut self, expression: &str) -> Result<Value, String> {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        )?;
        if let Some(thrown) = result.get("exceptionDetails") {
            return Err(format!("`{expression}` threw: {thrown}"));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Resizes the window to `width` x `height` CSS pixels.
    pub(crate) fn resize(&mut self, width: u32, height: u32) -> Result<(), String> {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        )
        .map(drop)
    }

    /// A real click, as a mouse would make it: the `nth` element (from 0) that
    /// `selector` names is scrolled into view and pressed and released at the
    /// centre of its first line (a link that wraps has a gap at its box's centre),
    /// which must be the element's own (not something over it).
    pub(crate) fn click(&mut self, selector: &str, nth: usize) -> Result<(), String> {
        let quoted = json!(selector).to_string();
        let element = format!("document.querySelectorAll({quoted})[{nth}]");
        let centre = self.evaluate(&format!(
            "(() => {{ const e = {element}; if (!e) return null; \
             e.scrollIntoView({{block: 'center', inline: 'center'}}); \
             const r = e.getClientRects()[0] || e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ))?;
        let (Some(x), Some(y)) = (centre[0].as_f64(), centre[1].as_f64()) else {
            return Err(format!("no element {nth} of `{selector}` on the page"));
        };
        let hit = self.evaluate(&format!(
            "(() => {{ const e = {element}; const at = document.elementFromPoint({x}, {y}); \
             return at !== null && (e === at || e.contains(at)) ? true : (at ? at.outerHTML.slice(0, 160) : 'nothing'); }})()"
        ))?;
        if hit != json!(true) {
            return Err(format!(
                "`{selector}` is covered by something else at its centre ({x:.0}, {y:.0}): {hit}"
            ));
        }
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
    }

    /// A PNG of the whole page (beyond the window's height), written to `path`.
    pub(crate) fn screenshot(&mut self, path: &Path) -> Result<(), String> {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        )?;
        let data = shot["data"].as_str().ok_or("a screenshot without data")?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("a screenshot that is not base64: {e}"))?;
        if !bytes.starts_with(b"\x89PNG") {
            return Err("the screenshot is not a PNG".to_string());
        }
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.process.call(
            None,
            "Target.closeTarget",
            json!({ "targetId": self.target }),
        );
    }
}
