//! A small client of the Chrome DevTools Protocol over `--remote-debugging-pipe`,
//! so the test can click, measure the layout and take screenshots in a real page:
//! the browser reads commands from its fd 3 and writes answers and events to its
//! fd 4, one JSON message each, ended by a NUL byte. `sh` moves the child's stdin
//! and stdout there, so no websocket client and no unsafe `pre_exec` is needed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// How long one command may take before the test gives up on the browser.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// One headless browser with one page (tab) attached.
pub(crate) struct Browser {
    child: Child,
    commands: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `binary` headless in a fresh profile and opens a page, with the
    /// page's own scripts on or off.
    pub(crate) fn launch(binary: &Path, scripts: bool) -> Result<Browser, String> {
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
        let (send, messages) = mpsc::channel();
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
                        if send.send(value).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut browser = Browser {
            child,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }))?;
        let target_id = target["targetId"].clone();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        )?;
        browser.session = attached["sessionId"]
            .as_str()
            .ok_or("attaching to the page gave no session")?
            .to_string();
        browser.call(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": !scripts }),
        )?;
        Ok(browser)
    }

    /// Sends `method` (to the page, once attached) and returns its result.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .and_then(|()| self.commands.flush())
            .map_err(|e| format!("{method}: the browser's pipe: {e}"))?;
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = self
                .messages
                .recv_timeout(left)
                .map_err(|_| format!("{method}: no answer from the browser within 60 s"))?;
            if answer["id"] != json!(id) {
                continue; // an event, or another command's answer
            }
            if let Some(error) = answer.get("error") {
                return Err(format!("{method}: {error}"));
            }
            return Ok(answer["result"].clone());
        }
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
        self.session.clear();
        let _ = self.call("Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
