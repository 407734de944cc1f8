//! A real browser for the tests that use pages as a person does: headless Chromium driven
//! over the DevTools protocol (`headless_chrome`), one tab, synchronous like the rest of
//! the tests.
//!
//! Chromium is `CHROMIUM` or `chromium` on PATH (`apt-get install chromium`); the tests that
//! need it are `#[ignore]`d and run with `cargo test -- --ignored`. It starts with a profile
//! of its own in a temporary folder and reaches no host but `localhost` and `127.0.0.1`, so a
//! page can reach this machine's loopback servers and its files, and nothing else; every request it
//! makes is kept ([`Browser::requested`]), so a test can hold a page to that.
//!
//! Every wait polls the page and gives up after [`PATIENCE`] with a panic that says what it
//! waited for, on which page: a slow machine gets its time, a stuck test says why.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::types::{Event, Method};
use headless_chrome::protocol::cdp::{Emulation, Input, Log, Network, Page, Runtime};
use headless_chrome::{LaunchOptions, Tab};
use serde_json::{Value, json};

/// How long any wait lasts before the test fails: far beyond what a page on this machine
/// needs, even on a loaded CI machine.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// How often a wait looks at the page again.
const POLL: Duration = Duration::from_millis(50);

/// Headless Chromium with one tab; killed, and its profile removed, when dropped.
pub struct Browser {
    tab: Arc<Tab>,
    requested: Arc<Mutex<Vec<String>>>,
    errors: Arc<Mutex<Vec<String>>>,
    /// Kept last: the process ends after the tab's handle.
    _chromium: headless_chrome::Browser,
}

impl Browser {
    /// Starts Chromium in a window 1280 by 900 CSS pixels. Panics, saying how to install
    /// it, when there is no Chromium to start.
    pub fn launch() -> Browser {
        let exe = chromium();
        let args = [
            "--headless=new",
            "--hide-scrollbars",
            "--mute-audio",
            "--no-default-browser-check",
            "--disable-component-update",
            "--disable-domain-reliability",
            "--disable-quic",
            "--no-pings",
            // No host is reached but this machine's loopback: nothing is fetched from
            // elsewhere, even by a page that tries.
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
        ];
        let options = LaunchOptions {
            // `--headless=new` above, rather than the crate's bare `--headless`.
            headless: false,
            // Chromium refuses to run as root inside its sandbox; CI runs as root.
            sandbox: !running_as_root(),
            path: Some(exe.clone()),
            // Chromium picks a free port and says which.
            port: Some(0),
            window_size: Some((1280, 900)),
            ignore_certificate_errors: false,
            // The connection is dropped after this long without a word from Chromium; a
            // test may spend longer than that on its own work between two pages.
            idle_browser_timeout: Duration::from_secs(600),
            args: args.iter().map(OsStr::new).collect(),
            ..LaunchOptions::default()
        };
        let chromium = headless_chrome::Browser::new(options).unwrap_or_else(|e| {
            panic!(
                "cannot start Chromium ({}): {e:#}; apt-get install chromium, or name \
                 another binary in CHROMIUM",
                exe.display()
            )
        });
        let tab = chromium
            .new_tab()
            .unwrap_or_else(|e| panic!("Chromium opens no tab: {e:#}"));
        tab.set_default_timeout(PATIENCE);
        let browser = Browser {
            tab,
            requested: Arc::default(),
            errors: Arc::default(),
            _chromium: chromium,
        };
        browser.listen();
        browser.set_window_size(1280, 900);
        browser
    }

    /// Keeps every request the tab makes, the page's uncaught exceptions and what it logs as
    /// an error (a script or style refused by the page's Content-Security-Policy among them).
    fn listen(&self) {
        let (requested, errors) = (self.requested.clone(), self.errors.clone());
        self.tab
            .add_event_listener(Arc::new(move |event: &Event| match event {
                Event::NetworkRequestWillBeSent(sent) => {
                    requested
                        .lock()
                        .unwrap()
                        .push(sent.params.request.url.clone());
                }
                Event::RuntimeExceptionThrown(thrown) => {
                    let details = &thrown.params.exception_details;
                    let what = details
                        .exception
                        .as_ref()
                        .and_then(|e| e.description.clone())
                        .unwrap_or_else(|| details.text.clone());
                    errors.lock().unwrap().push(what);
                }
                Event::LogEntryAdded(added)
                    if added.params.entry.level == Log::LogEntryLevel::Error =>
                {
                    let entry = &added.params.entry;
                    errors.lock().unwrap().push(match &entry.url {
                        Some(url) => format!("{} ({url})", entry.text),
                        None => entry.text.clone(),
                    });
                }
                _ => {}
            }))
            .expect("a listener on the tab");
        self.call::<Network::Enable>(json!({}));
        self.call::<Runtime::Enable>(json!(null));
        self.call::<Log::Enable>(json!(null));
    }

    /// Calls a DevTools method with its parameters as JSON: the fields the protocol leaves
    /// optional may be left out, whatever version of the protocol the crate carries.
    fn call<M>(&self, params: Value) -> M::ReturnObject
    where
        M: Method + serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let method: M = serde_json::from_value(params.clone())
            .unwrap_or_else(|e| panic!("{} {params}: {e}", std::any::type_name::<M>()));
        self.tab
            .call_method(method)
            .unwrap_or_else(|e| panic!("{} {params}: {e:#}", std::any::type_name::<M>()))
    }

    /// Opens `url` and waits until the page has loaded.
    pub fn open(&self, url: &str) {
        if let Err(e) = self.tab.navigate_to(url) {
            panic!("cannot open {url}: {e:#}");
        }
        self.wait_until(
            &format!("{url} to load"),
            "document.readyState === 'complete'",
        );
    }

    /// The address of the page shown.
    pub fn url(&self) -> String {
        self.tab.get_url()
    }

    /// Lays the page out in a window `width` by `height` CSS pixels, as a desktop browser
    /// of that size would (not a phone's emulation: the page is as wide as the window).
    pub fn set_window_size(&self, width: u32, height: u32) {
        self.call::<Emulation::SetDeviceMetricsOverride>(json!({
            "width": width,
            "height": height,
            "deviceScaleFactor": 1,
            "mobile": false,
        }));
        self.wait_until(
            &format!("a window {width} pixels wide"),
            &format!("window.innerWidth === {width}"),
        );
    }

    /// Waits until an element matches `selector`.
    pub fn wait_for(&self, selector: &str) {
        self.wait_until(
            &format!("an element matching `{selector}`"),
            &format!("document.querySelector({}) !== null", js_string(selector)),
        );
    }

    /// Waits until the page's address satisfies `ready`, and returns it; `what` says what
    /// was awaited if it never does.
    pub fn wait_for_url(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let begun = Instant::now();
        loop {
            let url = self.try_eval("location.href");
            if let Some(Value::String(url)) = url
                && ready(&url)
            {
                return url;
            }
            assert!(
                begun.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what}; the page is still {}",
                self.url()
            );
            std::thread::sleep(POLL);
        }
    }

    /// Waits until the JavaScript expression `condition` is true on the page (a page being
    /// replaced counts as not yet); `what` says what was awaited if it never is.
    pub fn wait_until(&self, what: &str, condition: &str) {
        let begun = Instant::now();
        while self.try_eval(condition) != Some(Value::Bool(true)) {
            assert!(
                begun.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what} on {}",
                self.url()
            );
            std::thread::sleep(POLL);
        }
    }

    /// Types `text` into the field that matches `selector` after emptying it: the field is
    /// clicked, then given the text at once as an input method gives it (one `input`
    /// event), not key by key, which the protocol's round trips make slow.
    pub fn fill(&self, selector: &str, text: &str) {
        self.click(selector);
        self.element(selector)
            .call_js_fn("function () { this.value = ''; }", vec![], false)
            .unwrap_or_else(|e| panic!("cannot empty `{selector}`: {e:#}"));
        self.call::<Input::InsertText>(json!({ "text": text }));
    }

    /// Clicks the middle of the element that matches `selector` with the mouse, after
    /// scrolling it into view.
    pub fn click(&self, selector: &str) {
        self.wait_for(selector);
        self.element(selector)
            .click()
            .unwrap_or_else(|e| panic!("cannot click `{selector}`: {e:#}"));
    }

    /// Submits the form that matches `selector` as its submit button would: its checks run
    /// and its `submit` event fires.
    pub fn submit(&self, selector: &str) {
        self.wait_for(selector);
        self.eval(&format!(
            "document.querySelector({}).requestSubmit()",
            js_string(selector)
        ));
    }

    /// The text of the element that matches `selector` as it is shown (`innerText`).
    pub fn text(&self, selector: &str) -> String {
        self.wait_for(selector);
        match self.eval(&format!(
            "document.querySelector({}).innerText",
            js_string(selector)
        )) {
            Value::String(text) => text,
            other => panic!("`{selector}` has no text: {other}"),
        }
    }

    /// The attribute `name` of the element that matches `selector`; `None` when absent.
    pub fn attribute(&self, selector: &str, name: &str) -> Option<String> {
        self.wait_for(selector);
        match self.eval(&format!(
            "document.querySelector({}).getAttribute({})",
            js_string(selector),
            js_string(name)
        )) {
            Value::String(value) => Some(value),
            _ => None,
        }
    }

    /// The value of the JavaScript `expression` on the page, through JSON (`null` for
    /// `undefined`); panics with the page's error if it throws.
    pub fn eval(&self, expression: &str) -> Value {
        let result = self
            .tab
            .evaluate(&format!("JSON.stringify({expression})"), true)
            .unwrap_or_else(|e| panic!("cannot evaluate `{expression}` on {}: {e:#}", self.url()));
        if result.subtype == Some(Runtime::RemoteObjectSubtype::Error) {
            panic!(
                "`{expression}` on {}: {}",
                self.url(),
                result.description.unwrap_or_default()
            );
        }
        match result.value {
            Some(Value::String(json)) => serde_json::from_str(&json).unwrap(),
            _ => Value::Null,
        }
    }

    /// [`Browser::eval`] that says `None` rather than fail: while a page is replaced there is
    /// nothing to evaluate on, and its expression may throw until the page is there.
    fn try_eval(&self, expression: &str) -> Option<Value> {
        let result = self
            .tab
            .evaluate(&format!("JSON.stringify({expression})"), true)
            .ok()?;
        match result.value {
            Some(Value::String(json)) if result.subtype.is_none() => {
                serde_json::from_str(&json).ok()
            }
            _ => None,
        }
    }

    /// Saves the whole page, not only the window, as a PNG at `path` (its folder created).
    pub fn screenshot(&self, path: &Path) {
        let metrics = self.call::<Page::GetLayoutMetrics>(json!(null));
        let size = metrics.css_content_size;
        let shot = self.call::<Page::CaptureScreenshot>(json!({
            "format": "png",
            "captureBeyondViewport": true,
            "clip": { "x": 0, "y": 0, "width": size.width, "height": size.height, "scale": 1 },
        }));
        let png = base64_decode(&shot.data);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(path, png).unwrap_or_else(|e| panic!("cannot save {}: {e}", path.display()));
    }

    /// Every address the tab has requested since it started, in order.
    pub fn requested(&self) -> Vec<String> {
        self.requested.lock().unwrap().clone()
    }

    /// The page's uncaught exceptions and the errors it logged (a script or style its
    /// Content-Security-Policy refused among them), since the tab started.
    pub fn errors(&self) -> Vec<String> {
        self.errors.lock().unwrap().clone()
    }

    /// Closes the tab and ends Chromium.
    pub fn close(self) {
        let _ = self.tab.close(false);
    }

    fn element(&self, selector: &str) -> headless_chrome::Element<'_> {
        self.tab
            .find_element(selector)
            .unwrap_or_else(|e| panic!("no `{selector}` on {}: {e:#}", self.url()))
    }
}

/// The Chromium to run: `CHROMIUM`, or `chromium` on PATH.
fn chromium() -> PathBuf {
    if let Some(exe) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(exe);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("chromium"))
        .find(|exe| exe.is_file())
        .unwrap_or_else(|| {
            panic!("no chromium on PATH: apt-get install chromium, or name the binary in CHROMIUM")
        })
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// Standard base64, as the DevTools protocol sends binary data.
fn base64_decode(text: &str) -> Vec<u8> {
    super::smtp::decode_base64(text)
}
