"""The session console (docs/operations.md#the-session-console) in a real headless Chromium against the local
stack, on the offline model and on the real SDKs against the loopback fake at 500 ms per model call. Each test
fails on any console error it did not expect; the screenshots in docs/screenshots are written by these
tests."""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, ViewportSize, expect
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.api.routes.console import offer_local_token
from trainer.settings import LOCAL_JWT_SECRET, Settings
from trainer_dev.local.stack import DEMO_USER_ID

from tests.e2e.conftest import FAKE_MODEL_MS, Stack
from tests.e2e.console_browser import (
    CUT_STREAM,
    DESKTOP,
    NOT_FOUND_RESOURCE,
    PHONE,
    RECORD_GROWTH,
    UNLABELLED_CONTROLS,
    Console,
    launched_browser,
    ready_plan,
    session_events,
)

pytestmark = pytest.mark.e2e

CHEST = "Give me a quick chest workout"
QUESTION = "How long should I rest between sets?"
MESSAGE_TOOLS = {"message_notify_user", "message_ask_user"}
STRANGER = "00000000-0000-4000-8000-0000000000ee"
VOLATILE = (
    "#who",
    ".session-label code",
    ".session-detail h3 code",
    ".totals > div:nth-child(2) dd",
    ".sessions code",
    ".session-meta",
    "td.time",
    ".turn-meta",
)


class ConsoleTiming(UserWarning):
    """The send-to-first-frame figures, as a warning: how an xdist worker gets them into the report."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched_browser() as launched:
        yield launched


def _console(browser: Browser, stack: Stack, viewport: ViewportSize = DESKTOP) -> Iterator[Console]:
    context = browser.new_context(
        viewport=viewport, locale="en-GB", timezone_id="UTC", reduced_motion="reduce"
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    console = Console(page=page, stack=stack)
    console.watch()
    try:
        yield console
    finally:
        context.close()
    assert console.unexpected_errors() == []


@pytest.fixture
def offline(browser: Browser, local_stack: Stack) -> Iterator[Console]:
    yield from _console(browser, local_stack)


@pytest.fixture
def fake_model(browser: Browser, fake_model_stack: Stack) -> Iterator[Console]:
    yield from _console(browser, fake_model_stack)


@pytest.fixture
def phone(browser: Browser, local_stack: Stack) -> Iterator[Console]:
    yield from _console(browser, local_stack, PHONE)


def turn_of(events: list[dict[str, Any]], message: str) -> list[dict[str, Any]]:
    """The events of the (last) turn that `message` started, up to the event that ended it."""
    starts = [
        i
        for i, e in enumerate(events)
        if e["event_type"] == "user_message" and e["data"]["message"] == message
    ]
    assert starts, f"no turn for {message!r}"
    turn = []
    for event in events[starts[-1] :]:
        turn.append(event)
        data = event["data"]
        ended = event["event_type"] == "turn_end" or (
            event["event_type"] == "tool_result"
            and data["success"]
            and data["tool_name"] in {"idle", "message_ask_user"}
        )
        if ended or (event["event_type"] == "error" and data.get("context") in {"agent_loop", "llm"}):
            break
    return turn


def expected_view(turn: list[dict[str, Any]]) -> dict[str, Any]:
    """What the chat must show for a turn's events, each exactly once."""
    calls = [e["data"] for e in turn if e["event_type"] == "tool_call"]
    artifacts = [
        e["data"]["result"]["artifact"]
        for e in turn
        if e["event_type"] == "tool_result"
        and e["data"]["tool_name"] == "message_notify_user"
        and e["data"]["result"].get("artifact")
    ]
    return {
        "knowledge": [e["data"]["source"] for e in turn if e["event_type"] == "knowledge"],
        "tools": [c["tool_name"] for c in calls if c["tool_name"] not in MESSAGE_TOOLS],
        "messages": [
            c["arguments"].get("message") or c["arguments"].get("question")
            for c in calls
            if c["tool_name"] in MESSAGE_TOOLS
        ],
        "workouts": [
            [x["exercise_name"] for x in a["payload"]["exercises"]]
            for a in artifacts
            if a["type"] == "exercise_list"
        ],
    }


def shown_view(console: Console) -> dict[str, Any]:
    turn = console.last_turn()
    return {
        "knowledge": turn.locator(".chip[data-kind='knowledge']").evaluate_all(
            "(els) => els.map((e) => e.dataset.source)"
        ),
        "tools": turn.locator(".chip[data-kind='tool']").evaluate_all(
            "(els) => els.map((e) => e.dataset.tool)"
        ),
        "messages": turn.locator(".assistant-text").all_text_contents(),
        "workouts": [
            card.locator(".exercise-name").all_text_contents() for card in turn.locator(".workout-card").all()
        ],
    }


def test_the_console_is_served_by_the_local_stack_outside_the_openapi_document(local_stack: Stack) -> None:
    root = httpx.get(f"{local_stack.base_url}/console")
    assert (root.status_code, root.headers["location"]) == (308, "console/")
    page = httpx.get(f"{local_stack.base_url}/console/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    script = httpx.get(f"{local_stack.base_url}/console/vendor/eventsource-parser/stream.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    offered = httpx.get(f"{local_stack.base_url}/console/local-token").json()
    assert offered["userId"] == DEMO_USER_ID
    assert (
        httpx.get(
            f"{local_stack.base_url}/agent/sessions", headers=local_stack.headers(offered["token"])
        ).status_code
        == 200
    )
    paths = httpx.get(f"{local_stack.base_url}/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/console")]


def test_the_console_is_off_by_default_and_never_hands_out_a_token_when_deployed() -> None:
    default = TestClient(create_app(settings=Settings.model_construct()))
    assert default.get("/console/").status_code == 404
    assert default.get("/console/local-token").status_code == 404

    local = Settings.model_construct(console_enabled=True)
    app = create_app(settings=local)
    assert TestClient(app).get("/console/local-token").status_code == 404
    offer_local_token(app, local, DEMO_USER_ID, "token")
    assert TestClient(app).get("/console/local-token").json() == {"userId": DEMO_USER_ID, "token": "token"}

    deployed = Settings.model_construct(console_enabled=True, lambda_function_name="trainer-api")
    app = create_app(settings=deployed)
    with pytest.raises(RuntimeError):
        offer_local_token(app, deployed, DEMO_USER_ID, "token")
    app.state.console_local_token = object()
    client = TestClient(app)
    assert client.get("/console/local-token").status_code == 404
    assert client.get("/console/").status_code == 200
    assert not [path for path in app.openapi()["paths"] if path.startswith("/console")]


def test_a_chest_workout_shows_its_card_and_a_model_written_reply_streams_in(offline: Console) -> None:
    offline.sign_in()
    assert offline.page.evaluate(UNLABELLED_CONTROLS) == []
    session_id = offline.new_session()
    offline.send(CHEST)
    offline.wait_turn_done()

    turn = offline.last_turn()
    card = turn.locator(".workout-card")
    expect(card).to_have_count(1)
    expected = expected_view(turn_of(session_events(offline.stack, session_id), CHEST))
    assert shown_view(offline) == expected
    assert expected["workouts"] and expected["workouts"][0]
    for dose in card.locator(".dose").all_text_contents():
        assert re.fullmatch(r"\d+ × [\d/]+( @ [\d./]+ kg)?", dose), dose
    expect(card.locator(".rest").first).to_contain_text("rest")
    offline.screenshot("chat", mask=VOLATILE)

    # the workout's reply is written from its result in one piece; a reply the model writes streams in
    offline.page.evaluate(RECORD_GROWTH)
    offline.send(QUESTION)
    offline.wait_turn_done()
    answer = expected_view(turn_of(session_events(offline.stack, session_id), QUESTION))
    growth = offline.page.evaluate("() => window.__growth")
    writing = [g["length"] for g in growth if g["busy"] and g["writing"]]
    assert len(set(writing)) >= 3 and writing == sorted(writing), writing
    assert writing[0] < len(answer["messages"][0]) and writing[-1] <= len(answer["messages"][0])


def test_the_reply_grows_before_done_and_the_first_frame_comes_first(
    fake_model: Console, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_model.sign_in()
    fake_model.new_session()
    for message in (CHEST, "Give me timers for this workout", QUESTION):
        fake_model.page.evaluate(RECORD_GROWTH)
        fake_model.send(message)
        fake_model.wait_turn_done()
        if message != QUESTION:
            continue  # a workout's or timers' reply is written from the results, in one piece
        growth = fake_model.page.evaluate("() => window.__growth")
        writing = [g for g in growth if g["busy"] and g["writing"]]
        lengths = [g["length"] for g in writing]
        assert len(set(lengths)) >= 3 and lengths == sorted(lengths), lengths
        finished = next(g["at"] for g in growth if not g["busy"])
        assert writing[-1]["at"] < finished
        assert writing[-1]["at"] - writing[0]["at"] > 100, "the reply arrived all at once"

    timings = fake_model.measures()
    turns = list(zip(timings["first-frame"], timings["first-content"], timings["first-text"], strict=True))
    assert len(turns) == 3, timings
    lines = []
    for number, (frame, content, text) in enumerate(turns, start=1):
        # a workout's and timers' chips come before the reply; an answer's first content may be its text
        assert frame < content < text if number < 3 else frame < content <= text
        lines.append(
            f"turn {number}: send -> first visible frame {frame:.0f} ms, first chip {content:.0f} ms, "
            f"first reply text {text:.0f} ms"
        )
    report = (
        f"session console on the local stack, real SDKs against the loopback fake at {FAKE_MODEL_MS} ms "
        "per model call (performance.now in the page, after the frame's paint):\n  " + "\n  ".join(lines)
    )
    with capsys.disabled():
        print(f"\n{report}", file=sys.stderr)
    warnings.warn(ConsoleTiming(report), stacklevel=1)


@pytest.mark.parametrize("cut_after", ["knowledge", "tool_start", "message_delta"])
def test_a_cut_stream_catches_up_with_no_duplicate_or_missing_event(
    fake_model: Console, cut_after: str
) -> None:
    fake_model.page.add_init_script(script=CUT_STREAM)
    fake_model.sign_in()
    session_id = fake_model.new_session()
    fake_model.page.evaluate(f"() => {{ window.__cutStreamAfter = {cut_after!r}; }}")
    fake_model.send(CHEST)
    fake_model.wait_turn_done()

    note = fake_model.last_turn().locator(".turn-meta").inner_text()
    caught = re.fullmatch(r"Reconnected: caught up on (\d+) frames? after frame (\d+)\.", note)
    assert caught, fake_model.last_turn().evaluate("(turn) => turn.outerHTML")
    count, last_id = int(caught.group(1)), int(caught.group(2))
    turn = turn_of(session_events(fake_model.stack, session_id), CHEST)
    with fake_model.stack.client() as http:
        rest = http.get(f"/agent/sessions/{session_id}/frames", params={"after": last_id}).json()
    assert rest["turnEnded"] and rest["frames"], "the stream was cut after the turn had ended"
    assert count == len(rest["frames"])
    assert shown_view(fake_model) == expected_view(turn)
    expect(fake_model.last_turn().locator(".workout-card")).to_have_count(1)


def test_the_timeline_shows_each_model_call_with_its_tokens_and_cost_and_each_source_its_budget(
    offline: Console,
) -> None:
    offline.sign_in()
    session_id = offline.new_session()
    offline.send(CHEST)
    offline.wait_turn_done()
    offline.send("Give me timers for this workout")
    offline.wait_turn_done()
    events = session_events(offline.stack, session_id)
    assert not [e["data"] for e in events if e["event_type"] == "error"], "the console sends currentWorkout"

    offline.open(f"#/timeline/{session_id}")
    rows = offline.page.locator("table.events tbody tr")
    expect(rows).to_have_count(len(events))
    expect(offline.page.locator(".chart .bar")).to_have_count(2)
    offline.screenshot("timeline", mask=VOLATILE)
    calls = [e for e in events if e["event_type"] == "llm_response"]
    assert calls
    for event in calls:
        tokens, cost = event["data"]["tokens"], event["data"]["cost_cents"] / 100
        row = offline.page.locator(f"tr[data-seq='{event['sequence_number']}']")
        assert row.locator("td.input").inner_text() == f"{tokens['prompt']:,}"
        assert row.locator("td.cached").inner_text() == f"{tokens['cached']:,}"
        assert row.locator("td.output").inner_text() == f"{tokens['completion']:,}"
        assert row.locator("td.cost").inner_text() == (f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}")
        assert re.fullmatch(r"\d+%", row.locator("td.share").inner_text())

    knowledge = [e for e in events if e["event_type"] == "knowledge" and e["data"].get("budget")]
    assert knowledge, "the initializer's sources record how they fitted the prompt budget"
    for event in knowledge:
        budget = event["data"]["budget"]
        row = offline.page.locator(f"tr[data-seq='{event['sequence_number']}']")
        fitted = f"{budget['tokens']:,} of {budget['limit']:,} tokens"
        assert row.locator("td.subject").inner_text() == f"{event['data']['source']} · {fitted}"

    offline.page.get_by_label("Event type").select_option("llm_response")
    expect(offline.page.locator("table.events tbody tr:visible")).to_have_count(len(calls))
    button = offline.page.get_by_role("button", name=f"JSON of event {calls[0]['sequence_number']}")
    button.click()
    dialog = offline.page.get_by_role("dialog")
    expect(dialog).to_contain_text('"event_type": "llm_response"')
    offline.page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(button).to_be_focused()
    offline.page.get_by_label("Event type").select_option("")

    with offline.stack.client() as http:
        newest = [s["id"] for s in http.get("/agent/sessions", params={"limit": 50}).json()["sessions"]]
    listed = offline.page.locator(".sessions a").evaluate_all(
        "(els) => els.map((e) => e.getAttribute('href').split('/').pop())"
    )
    assert listed == newest


def test_another_users_session_is_not_found(offline: Console) -> None:
    offline.allowed.append(NOT_FOUND_RESOURCE)
    stranger_token = mint_dev_token(LOCAL_JWT_SECRET, STRANGER)
    created = httpx.post(
        f"{offline.stack.base_url}/agent/sessions", headers=offline.stack.headers(stranger_token)
    )
    session_id = created.json()["session"]["id"]
    offline.sign_in()
    for view in ("timeline", "chat"):
        offline.open(f"#/{view}/{session_id}")
        offline.page.reload()
        expect(offline.page.get_by_role("heading", name="Session not found")).to_be_visible()
        expect(offline.page.get_by_role("alert")).to_contain_text("not found")
    assert offline.errors and all(NOT_FOUND_RESOURCE.search(e) for e in offline.errors)

    offline.page.get_by_role("button", name="Sign out").click()
    offline.page.get_by_label("Bearer token").fill(stranger_token)
    offline.page.get_by_role("button", name="Sign in with this token").click()
    offline.page.get_by_role("heading", name="Chat").wait_for()
    offline.open(f"#/timeline/{session_id}")
    expect(offline.page.locator(".session-detail h3")).to_contain_text(session_id)


def test_the_plans_view_shows_the_active_plan_as_a_calendar(offline: Console) -> None:
    detail = ready_plan(offline.stack)
    offline.sign_in()
    offline.open("#/plans")
    offline.page.reload()
    days = offline.page.locator(".week-days > .day")
    expect(days).to_have_count(len(detail["days"]))
    # A calendar reads in date order whatever weekday the plan starts on (it starts today).
    assert days.evaluate_all("cells => cells.map(cell => cell.dataset.date)") == sorted(
        d["date"] for d in detail["days"]
    )
    training = sorted((d for d in detail["days"] if d["workout"]), key=lambda d: d["date"])
    cards = offline.page.locator(".week-days .workout-card")
    expect(cards).to_have_count(len(training))
    first = training[0]
    expect(cards.first.locator(".exercise-name")).to_have_text(
        [x["exercise_name"] for x in first["workout"]["exercises"]]
    )
    if any(x.get("group") for x in first["workout"]["exercises"]):
        expect(cards.first.locator(".group-title").first).to_be_visible()
    with_message = [d for d in detail["days"] if d["message"]]
    expect(offline.page.locator(".day-message")).to_have_count(len(with_message))
    expect(offline.page.get_by_role("heading", name=detail["plan"]["title"])).to_be_visible()
    offline.screenshot("plans", mask=VOLATILE)


def test_every_view_fits_a_phone_with_no_console_error(phone: Console) -> None:
    phone.open()
    expect(phone.page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert phone.page.evaluate(UNLABELLED_CONTROLS) == []
    phone.sign_in()
    session_id = phone.new_session()
    phone.send(CHEST)
    phone.wait_turn_done()
    phone.last_turn().evaluate("(turn) => turn.scrollIntoView({ block: 'start' })")
    phone.screenshot("chat-phone", mask=VOLATILE, full_page=False)
    for route in ("#/chat", f"#/chat/{session_id}", "#/timeline", f"#/timeline/{session_id}", "#/plans"):
        phone.open(route)
        phone.page.reload()
        phone.page.locator("main h2").first.wait_for()
        phone.page.wait_for_load_state("networkidle")
        assert phone.page.evaluate(UNLABELLED_CONTROLS) == [], route
        overflow = phone.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{route} is {overflow}px wider than the phone"
    assert phone.unexpected_errors() == []
