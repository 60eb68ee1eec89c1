"""Plays scenarios through the production container: the real agent loop and tools, the session store
on DynamoDB (moto), the domain tables on Postgres, and the API's `/agent/chat` route in-process.

Modes: `offline` (the rule-based model in-process), `sdk` (the real anthropic and openai SDKs against
the loopback FakeLLMServer running the same policy, wired as `trainer local --fake-llm` wires it, on the
default model, Claude Haiku 5.5), `sdk-sonnet-5-5` and `sdk-opus-5-5` (the same on Sonnet 5.5 and
Opus 5.5, which the fake answers as their API does: no forced tool choice, thinking always on) and
`live` (the real APIs, when keys are set)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

import httpx
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.chat.hooks import TurnHooks, TurnSummary
from trainer.container import Container, agent_run_deps, build_container
from trainer.offline.selector import DeterministicKnowledgeSelector
from trainer.programs.pipeline import ProgramDeps
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client, parse_template, table_definitions, time_to_live_attributes
from trainer.store.models import Session
from trainer.store.ports import SessionStore

from tests.scenarios.checks import Constraints, TurnOutcome, check_turn
from tests.scenarios.schema import Scenario
from tests.scenarios.world import (
    scenario_rules,
    seed_training_plan,
    seed_user,
    take_snapshot,
    workout_exercise,
)

Mode = Literal["offline", "sdk", "sdk-sonnet-5-5", "sdk-opus-5-5", "live"]
SDK_MODELS: dict[str, str | None] = {
    "sdk": None,
    "sdk-sonnet-5-5": "claude-sonnet-5-5",
    "sdk-opus-5-5": "claude-opus-5-5",
}
"""The fake-server modes and the model each runs its agents on (None: the settings' default)."""
SEED_MESSAGE = "Plan my workout for today."
RESULT_KEY = "scenario_result"
"""The user property a scenario test records its result under (read back by the summary)."""


class NullPublisher:
    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        return None


class TurnRecorder(TurnHooks):
    """The summary (usage, cost) of the last finished turn of each session."""

    def __init__(self) -> None:
        self.last: dict[str, TurnSummary] = {}

    async def on_turn_end(self, session: Session, summary: TurnSummary) -> None:
        self.last[session.id] = summary


class SeedModel:
    """Replays a workout 'generated earlier in the session': generate_workout with the scenario's
    exercises, a message, idle."""

    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(self) -> None:
        self.steps: list[tuple[str, dict[str, Any]]] = []

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        name, arguments = self.steps.pop(0) if self.steps else ("idle", {"reason": "seeded"})
        call = ToolCall(id=f"toolu_seed_{uuid.uuid4().hex[:20]}", name=name, arguments=arguments)
        raw = {
            "id": f"msg_seed_{uuid.uuid4().hex[:12]}",
            "content": [{"type": "tool_use", "id": call.id, "name": name, "input": arguments}],
            "stop_reason": "tool_use",
        }
        return ModelResponse(call, Usage(input_tokens=1, output_tokens=1), request.model, "tool_use", raw)


@dataclass
class TurnRecord:
    say: str
    reply: str
    tools: list[tuple[str, bool]]
    cost_cents: float
    usage: dict[str, int]
    failures: list[str]
    session_id: str | None = None
    """The session the turn was played on (None when the API answered without one)."""


LOCAL_DAY_MARGIN = timedelta(minutes=3)
"""A scenario is seeded and played on one local day: one that would start this close to the user's
midnight waits for it (a plan seeded on 'tomorrow' before midnight is 'today' after it)."""


async def within_one_local_day(zone: str, now: datetime | None = None) -> float:
    """Waits past the user's next local midnight when it is within LOCAL_DAY_MARGIN; the seconds waited."""
    local = (now or datetime.now(UTC)).astimezone(ZoneInfo(zone))
    midnight = datetime.combine(local.date() + timedelta(days=1), dt_time(0), tzinfo=local.tzinfo)
    left = (midnight - local).total_seconds()
    if left > LOCAL_DAY_MARGIN.total_seconds():
        return 0.0
    await asyncio.sleep(left + 1)
    return left + 1


@dataclass
class ScenarioResult:
    scenario_id: str
    mode: str
    failures: list[str] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    seconds: float = 0.0
    user_id: str | None = None
    """The user the scenario seeded (its sessions and stored state are theirs)."""

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def first_failure(self) -> str:
        return self.failures[0] if self.failures else ""

    @property
    def cost_cents(self) -> float:
        return sum(t.cost_cents for t in self.turns)

    def tokens(self, key: str) -> int:
        return sum(int(t.usage.get(key, 0)) for t in self.turns)

    def explain(self) -> str:
        """The first failed assertion, then the conversation as played."""
        lines = [f"{self.scenario_id} [{self.mode}]: {self.first_failure}"]
        if len(self.failures) > 1:
            lines.append(f"  (+{len(self.failures) - 1} more: " + " | ".join(self.failures[1:4]) + ")")
        previous: str | None = None
        for number, turn in enumerate(self.turns, start=1):
            tools = ", ".join(f"{name}{'' if ok else ' (failed)'}" for name, ok in turn.tools) or "no tools"
            opened = " (in a new session)" if number > 1 and turn.session_id != previous else ""
            previous = turn.session_id
            lines.append(f"  turn {number} user{opened}: {turn.say}")
            lines.append(f"         tools: {tools}")
            lines.append("         reply: " + turn.reply.replace("\n", " / ")[:400])
        return "\n".join(lines)


def mode_settings(base: Settings, mode: Mode, fake_url: str | None = None) -> Settings:
    if mode == "offline":
        return base.model_copy(
            update={
                "anthropic_api_key": None,
                "openai_api_key": None,
                "anthropic_base_url": None,
                "openai_base_url": None,
            }
        )
    if mode in SDK_MODELS:
        assert fake_url is not None
        model = SDK_MODELS[mode]
        models = {"model": model, "light_model": model} if model else {}
        return base.model_copy(
            update={
                "anthropic_api_key": SecretStr("sk-ant-scenarios-fake"),
                "anthropic_base_url": fake_url,
                "openai_api_key": SecretStr("sk-scenarios-fake"),
                "openai_base_url": f"{fake_url}/v1",
                **models,
            }
        )
    if base.anthropic_api_key is None:
        raise ValueError("live mode needs ANTHROPIC_API_KEY")
    return base


class ScenarioRunner:
    """One mode's container and API, playing scenarios one after another."""

    def __init__(
        self,
        mode: Mode,
        container: Container,
        seeder: Container,
        seed_model: SeedModel,
        recorder: TurnRecorder,
        db: Database,
        store: SessionStore,
    ) -> None:
        self.mode = mode
        self.container = container
        self.seeder = seeder
        self.seed_model = seed_model
        self.recorder = recorder
        self.db = db
        self.store = store
        self.seed_programs = ProgramDeps(
            db=db, agents=agent_run_deps(mode_settings(container.settings, "offline"), db), publisher=None
        )
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(container)),
            base_url="http://scenarios.test",
            timeout=300,
        )
        self.seed_client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(seeder)),
            base_url="http://scenarios.test",
            timeout=300,
        )

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.seed_client.aclose()
        await self.container.aclose()
        await self.seeder.aclose()

    def _headers(self, user_id: str) -> dict[str, str]:
        secret = self.container.settings.jwt_secret.get_secret_value()
        return {"Authorization": f"Bearer {mint_dev_token(secret, user_id)}"}

    async def _seed_workout(self, scenario: Scenario, user_id: str) -> tuple[str, list[dict[str, Any]]]:
        spec = scenario.user.current_workout
        assert spec is not None
        exercises = [
            workout_exercise(ex, n, scenario.user.weight_unit, scenario.user.distance_unit)
            for n, ex in enumerate(spec.exercises, start=1)
        ]
        self.seed_model.steps = [
            ("generate_workout", {"workout": {"title": spec.title, "exercises": exercises}}),
            ("message_notify_user", {"message": f"Here's {spec.title}."}),
            ("idle", {"reason": "workout delivered"}),
        ]
        response = await self.seed_client.post(
            "/agent/chat", json={"message": SEED_MESSAGE}, headers=self._headers(user_id)
        )
        body = response.json()
        actions = body.get("actions") or []
        if response.status_code != 200 or not all((a.get("result") or {}).get("success") for a in actions):
            raise RuntimeError(f"could not seed the current workout: {str(body)[:500]}")
        return str(body["sessionId"]), list(body["response"]["exercises"])

    async def _readiness(self, user_id: str) -> list[dict[str, Any]]:
        """The user's check-ins through the route the app uses."""
        response = await self.client.get("/readiness?days_back=90", headers=self._headers(user_id))
        response.raise_for_status()
        return list(response.json()["entries"])

    async def _calendar(self, user_id: str, snapshot: Any) -> list[dict[str, Any]]:
        """The user's calendar through the route the app uses: two weeks back to four ahead."""
        today = snapshot.taken_at.astimezone(snapshot.zone).date()
        start, end = today - timedelta(days=14), today + timedelta(days=27)
        response = await self.client.get(f"/workouts?from={start}&to={end}", headers=self._headers(user_id))
        response.raise_for_status()
        return list(response.json()["workouts"])

    async def _profile(self, user_id: str) -> dict[str, Any]:
        """The user's profile through the route the app uses."""
        response = await self.client.get("/me/profile", headers=self._headers(user_id))
        response.raise_for_status()
        return dict(response.json()["profile"])

    async def session_events(self, user_id: str, session_id: str) -> list[dict[str, Any]]:
        """A session's timeline (user messages, tool calls and results) through the route the app uses."""
        events: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            response = await self.client.get(
                f"/agent/sessions/{session_id}/events?after={after}&limit=500", headers=self._headers(user_id)
            )
            response.raise_for_status()
            page = response.json()
            events.extend(page["events"])
            after = page["nextAfter"]
        return events

    async def run(self, scenario: Scenario) -> ScenarioResult:
        result = ScenarioResult(scenario.id, self.mode)
        started = time.perf_counter()
        try:
            await self._play(scenario, result)
        except Exception as exc:
            result.failures.insert(0, f"the scenario broke: {type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - started
        return result

    async def _play(self, scenario: Scenario, result: ScenarioResult) -> None:
        await within_one_local_day(scenario.user.timezone)
        user_id = await seed_user(self.db, scenario.user, datetime.now(UTC))
        result.user_id = user_id
        if scenario.user.training_plan is not None:
            await seed_training_plan(self.seed_programs, user_id, scenario.user, datetime.now(UTC))
        session_id: str | None = None
        shown: list[dict[str, Any]] | None = None
        if scenario.user.current_workout is not None:
            session_id, shown = await self._seed_workout(scenario, user_id)
        muscles, phrases = scenario_rules(scenario)
        rules = Constraints(set(muscles), set(phrases))
        first = before = await take_snapshot(self.db, self.store, user_id, session_id, datetime.now(UTC))
        before.readiness = await self._readiness(user_id)
        before.calendar = await self._calendar(user_id, before)
        before.profile = await self._profile(user_id)
        outcome: TurnOutcome | None = None
        all_tools: list[dict[str, Any]] = []
        replies: list[str] = []
        for number, turn in enumerate(scenario.turns, start=1):
            if turn.adds_rules is not None:
                rules.avoid_muscles |= set(turn.adds_rules.avoid_muscles)
                rules.avoid_exercises |= set(turn.adds_rules.avoid_exercises)
            earlier_session = session_id
            if turn.new_session:
                # a later conversation: no session id, so the API opens a session with an empty history
                # and no workout on the phone; the before-state is that new session's (nothing open)
                session_id, shown = None, None
                before = replace(before, current_workout=None)
            payload: dict[str, Any] = {"message": turn.say}
            if session_id:
                payload["sessionId"] = session_id
            if shown and turn.current_workout == "shown":
                payload["currentWorkout"] = {"exercises": shown}
            response = await self.client.post("/agent/chat", json=payload, headers=self._headers(user_id))
            body = response.json()
            if response.status_code == 200:
                session_id = str(body.get("sessionId") or session_id)
                exercises = (body.get("response") or {}).get("exercises")
                shown = list(exercises) if exercises else shown
            summary = self.recorder.last.pop(session_id, None) if session_id else None
            after = await take_snapshot(self.db, self.store, user_id, session_id, datetime.now(UTC))
            after.readiness = await self._readiness(user_id)
            after.calendar = await self._calendar(user_id, after)
            after.profile = await self._profile(user_id)
            outcome = TurnOutcome(
                say=turn.say,
                status_code=response.status_code,
                body=body if isinstance(body, dict) else {"body": body},
                before=before,
                after=after,
                usage=dict(summary.usage) if summary else {},
                cost_cents=float(summary.cost_cents) if summary else 0.0,
            )
            checked = check_turn(turn.expect, outcome, rules)
            if turn.new_session and response.status_code == 200 and session_id in (None, earlier_session):
                checked.insert(0, "a new session was asked for, but the turn ran on the earlier one")
            failures = [f"turn {number} ({turn.say!r}): {f}" for f in checked]
            result.failures.extend(failures)
            result.turns.append(
                TurnRecord(
                    turn.say,
                    outcome.reply_text,
                    outcome.tools,
                    outcome.cost_cents,
                    outcome.usage,
                    failures,
                    session_id,
                )
            )
            all_tools.extend(outcome.body.get("actions") or [])
            replies.extend(outcome.messages)
            before = after
        if scenario.final is not None and outcome is not None:
            whole = TurnOutcome(
                say="(the whole conversation)",
                status_code=200,
                body={"actions": all_tools, "response": {"messages": replies}},
                before=first,
                after=outcome.after,
            )
            result.failures.extend(
                f"at the end: {f}" for f in check_turn(scenario.final, whole, rules, final=True)
            )


@asynccontextmanager
async def open_runner(
    mode: Mode, base: Settings, db: Database, store: SessionStore
) -> AsyncIterator[ScenarioRunner]:
    """A runner for one mode on the given stores (the fake server, when used, runs as long as it)."""
    from trainer.offline import OfflineAgentModel
    from trainer.offline.planner import OfflineCoach
    from trainer_dev.local.fake_llm import FakeLLMServer, ResultJournal

    async with AsyncExitStack() as stack:
        hooks: list[TurnHooks] = []
        fake_url = None
        if mode in SDK_MODELS:
            journal = ResultJournal()
            fake = FakeLLMServer(
                OfflineAgentModel(OfflineCoach(db, store)),
                policy_loop=asyncio.get_running_loop(),
                journal=journal,
            ).start()
            stack.callback(fake.stop)
            hooks.append(journal)
            fake_url = fake.base_url
        settings = mode_settings(base, mode, fake_url)
        recorder = TurnRecorder()
        container = await build_container(
            settings, store=store, db=db, publisher=NullPublisher(), hooks=[recorder, *hooks]
        )
        seed_model = SeedModel()
        seeder = await build_container(
            settings,
            store=store,
            db=db,
            publisher=NullPublisher(),
            agent_model=seed_model,
            selector=DeterministicKnowledgeSelector(),
            hooks=hooks,
        )
        runner = ScenarioRunner(mode, container, seeder, seed_model, recorder, db, store)
        stack.push_async_callback(runner.aclose)
        yield runner


@dataclass(frozen=True)
class FreshTables:
    """Deletes and creates again the scenario run's DynamoDB tables, from definitions read from the
    template once (a few moto calls, ~10 ms)."""

    settings: Settings
    definitions: list[dict[str, Any]]
    time_to_live: dict[str, str]

    @classmethod
    def of(cls, settings: Settings, template: Path) -> FreshTables:
        parsed = parse_template(template.read_text(encoding="utf-8"))
        return cls(settings, table_definitions(parsed, settings), time_to_live_attributes(parsed, settings))

    def __call__(self) -> None:
        dynamodb = aws_client("dynamodb", self.settings)
        for definition in self.definitions:
            dynamodb.delete_table(TableName=definition["TableName"])
            dynamodb.create_table(**definition)
        for table, attribute in self.time_to_live.items():
            dynamodb.update_time_to_live(
                TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": attribute}
            )


@dataclass
class Runners:
    """One runner per mode on shared stores, opened on first use, closed with `stack`."""

    settings: Settings
    db: Database
    store: SessionStore
    stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    opened: dict[str, ScenarioRunner] = field(default_factory=dict)
    reset: FreshTables | None = None
    """With it, `fresh_tables` empties the tables between scenarios."""

    async def fresh_tables(self) -> None:
        """Empty DynamoDB tables for the next scenario, which seeds a user of its own: nothing carries
        over, and moto (which reads every item of a table for each query) answers each query from
        this scenario's items alone rather than from the whole run's."""
        if self.reset is not None:
            await asyncio.to_thread(self.reset)

    async def get(self, mode: Mode) -> ScenarioRunner:
        if mode not in self.opened:
            self.opened[mode] = await self.stack.enter_async_context(
                open_runner(mode, self.settings, self.db, self.store)
            )
        return self.opened[mode]
