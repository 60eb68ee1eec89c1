"""Headless Chromium for the session console's tests: Debian's `chromium` (installed by
scripts/ensure_system_packages.sh, which `make test` runs) driven by Playwright for Python through
`executable_path`, since Playwright's own browser download cannot run here."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, ViewportSize, sync_playwright

from tests.e2e.conftest import REPO, Stack

SCREENSHOTS = (
    REPO / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "trainer-console-screenshots"
)
"""docs/screenshots is rewritten by `make screenshots` only; a test run writes a scratch copy."""
DESKTOP = ViewportSize(width=1280, height=900)
PHONE = ViewportSize(width=390, height=844)
CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
MASK_COLOR = "#c9ced8"
NOT_FOUND_RESOURCE = re.compile(r"Failed to load resource: the server responded with a status of 404")
TURN_TIMEOUT_MS = 120_000

CUT_STREAM = """
(() => {
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url;
    const marker = window.__cutStreamAfter;
    if (!marker || !url.endsWith("/agent/stream") || !response.ok) return response;
    window.__cutStreamAfter = null;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let pending = "";
    let cut = false;
    const body = new ReadableStream({
      async pull(controller) {
        if (cut) {
          await reader.cancel();
          controller.error(new TypeError("network error (cut by the test)"));
          return;
        }
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          pending += decoder.decode(value, { stream: true });
          const blocks = pending.split("\\n\\n");
          pending = blocks.pop();
          if (!blocks.length) continue;
          for (const block of blocks) {
            controller.enqueue(encoder.encode(block + "\\n\\n"));
            if (block.includes(`"type":"${marker}"`)) {
              controller.enqueue(encoder.encode('data: {"type":"kno'));
              cut = true;
              return;
            }
          }
          return;
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
})();
"""

WITHDRAWN_PREVIEW = """
(() => {
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url;
    const text = window.__withdrawnPreview;
    if (!text || !url.endsWith("/agent/stream") || !response.ok) return response;
    window.__withdrawnPreview = null;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let pending = "";
    let injected = false;
    const body = new ReadableStream({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        pending += decoder.decode(value, { stream: true });
        const blocks = pending.split("\\n\\n");
        pending = blocks.pop();
        for (const block of blocks) {
          if (!injected && block.includes('"type":"message_delta"')) {
            injected = true;
            const cut = { type: "message_delta", data: { tool: "message_notify_user", text } };
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(cut)}\\n\\n`));
            controller.enqueue(encoder.encode('data: {"type":"message_reset"}\\n\\n'));
          }
          controller.enqueue(encoder.encode(block + "\\n\\n"));
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
})();
"""
"""A stream whose first `message_delta` is preceded by the preview of an answer that was cut off (`text`
in `window.__withdrawnPreview`) and the `message_reset` that withdraws it, as a turn sends them when a
model call is made again."""

RECORD_GROWTH = """
() => {
  window.__growth = [];
  const transcript = document.querySelector(".transcript");
  new MutationObserver(() => {
    const turn = transcript.querySelector(".turn:last-child");
    const bubble = turn && turn.querySelector(".assistant-text");
    window.__growth.push({
      at: performance.now(),
      length: bubble ? bubble.textContent.length : 0,
      writing: Boolean(bubble && bubble.dataset.state === "writing"),
      busy: turn ? turn.getAttribute("aria-busy") === "true" : false,
    });
  }).observe(transcript, { subtree: true, childList: true, characterData: true, attributes: true });
}
"""

UNLABELLED_CONTROLS = """
() => [...document.querySelectorAll("input, textarea, select, button")]
  .filter((el) => !el.closest("[hidden]"))
  .filter((el) => el.tagName === "BUTTON"
    ? !(el.textContent.trim() || el.getAttribute("aria-label"))
    : !(el.labels.length || el.getAttribute("aria-label")))
  .map((el) => el.outerHTML.slice(0, 120))
"""


def chromium_path() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "Chromium is not installed, and the session console's browser tests need it. `make test` "
        "installs Debian's package through scripts/ensure_system_packages.sh (apt-get install -y "
        "chromium, as root or through sudo): run that script, or `sudo apt-get install chromium`.",
        pytrace=False,
    )


@contextmanager
def launched_browser() -> Iterator[Browser]:
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Console:
    """A console page against one stack, with every console error and page error it logs."""

    page: Page
    stack: Stack
    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def watch(self) -> None:
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(pattern.search(e) for pattern in self.allowed)]

    def open(self, route: str = "") -> None:
        self.page.goto(f"{self.stack.base_url}/console/{route}")

    def sign_in(self) -> None:
        self.open()
        self.page.get_by_role("button", name="Sign in as the demo user").click()
        self.page.get_by_role("heading", name="Chat").wait_for()

    def new_session(self) -> str:
        self.page.get_by_role("button", name="New session").click()
        self.page.locator(".session-label code").wait_for()
        return self.session_id()

    def session_id(self) -> str:
        match = re.search(r"#/chat/([0-9a-f-]{36})", self.page.url)
        assert match, self.page.url
        return match.group(1)

    def send(self, text: str) -> None:
        box = self.page.get_by_label("Message")
        box.fill(text)
        box.press("Enter")

    def last_turn(self) -> Any:
        return self.page.locator(".transcript > .turn").last

    def wait_turn_done(self) -> None:
        self.page.locator(".transcript > .turn:last-child[aria-busy='false']").wait_for(
            timeout=TURN_TIMEOUT_MS
        )

    def measures(self) -> dict[str, list[float]]:
        """The console's User Timing measures (`console:first-frame`...), each in the order taken."""
        entries = self.page.evaluate(
            "() => performance.getEntriesByType('measure').map((m) => [m.name, m.duration])"
        )
        found: dict[str, list[float]] = {}
        for name, duration in entries:
            found.setdefault(name.removeprefix("console:"), []).append(duration)
        return found

    def screenshot(self, name: str, *, mask: tuple[str, ...] = (), full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        self.page.screenshot(
            path=str(path),
            full_page=full_page,
            animations="disabled",
            caret="hide",
            mask=[self.page.locator(selector) for selector in mask],
            mask_color=MASK_COLOR,
        )
        return path


def session_events(stack: Stack, session_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after: int | None = 0
    with stack.client() as http:
        while after is not None:
            page = http.get(f"/agent/sessions/{session_id}/events", params={"after": after, "limit": 500})
            page.raise_for_status()
            body = page.json()
            events.extend(body["events"])
            after = body["nextAfter"]
    return events


def ready_plan(stack: Stack, weeks: int = 4, timeout_s: float = 120.0) -> dict[str, Any]:
    """A plan for the demo user, requested and built: its `GET /plans/{id}` answer."""
    with stack.client() as http:
        created = http.post("/plans", json={"weeks": weeks})
        assert created.status_code == 202, created.text
        plan_id = created.json()["plan"]["id"]
        deadline = time.monotonic() + timeout_s
        while True:
            detail: dict[str, Any] = http.get(f"/plans/{plan_id}").json()
            status = detail["plan"]["status"]
            built = [week["status"] for week in detail["weeks"]]
            if status == "failed" or "failed" in built:
                pytest.fail(f"plan {plan_id} failed: {detail['plan']} {detail['weeks']}", pytrace=False)
            if status == "ready" and built and "building" not in built and detail["days"]:
                return detail
            if time.monotonic() > deadline:
                pytest.fail(f"plan {plan_id} not built after {timeout_s:.0f} s: {detail}", pytrace=False)
            time.sleep(0.5)
