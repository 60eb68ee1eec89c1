"""A loopback HTTP server that speaks enough of Anthropic's Messages API (JSON and SSE) and
OpenAI's chat completions for the real SDKs to run against it, with prompt caching simulated
from the request's cache_control breakpoints (docs/architecture.md#context-and-the-prompt-cache).

Requests naming a registry agent (the `x-trainer-agent` header the agent backends send) are answered
by that agent's offline implementation, with the input and context read back from the request: a
forced `emit_<schema>` tool call, or the JSON as text when the request asks for `output_config.format`
(Anthropic), or JSON content (OpenAI) for json agents, text for the others, tool calls when the
implementation asks for tools. `fail_next_structured_with_invalid = N` makes the next N of those
answers invalid (`{"_fake_invalid": true}`, or empty text); `break_next_tool_arguments = N` gives the
next N chat tool calls arguments no tool takes.

Per model (trainer.providers.models) the fake answers as the real API does: a 400 with the real error
shape for forced tool choice where the model rejects it, for thinking types it rejects, for
temperature/top_p/top_k and for an assistant prefill; on models that think adaptively a thinking block
with a signature before each tool call (its text empty unless the request asks for a display that
returns it) and before a registry agent's written answer (its text empty), bound to the model, the call
(none for a written answer) and the prefix it was written after; a 400 when a follow-up in the same
tool loop drops or alters one (an output call answered with a retry's `tool_result` included), or when
any block sent back is altered, or when a replayed block's prefix changed (unless the
request asks for `block_binding.prefix_mismatch_behavior: drop_block`: then it is dropped); caching from the
model's own minimum; token counts with its tokenizer factor. `refuse_next = N` answers the next N
messages requests with a refusal (HTTP 200, stop_reason "refusal"); `cut_next_at_max_tokens = N` with
an answer cut off by max_tokens."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from pydantic import BaseModel
from trainer.agents.definitions import OfflineContext, ToolExchange
from trainer.agents.registry import AgentRegistry
from trainer.agents.tools import ToolOutcome
from trainer.agents.wire import CONTEXT_OPEN, FEEDBACK_PREFIX, INPUT_CLOSE, INPUT_OPEN, parse_input
from trainer.chat.hooks import TurnHooks
from trainer.domain.composer import ComposedWorkout
from trainer.domain.workout import Exercise, Workout
from trainer.offline import OfflineAgentModel
from trainer.offline.records import UserRecords
from trainer.offline.selector import decide
from trainer.offline.structured import offline_output, reply_from_output
from trainer.providers.anthropic import OUTPUT_TOOL_PREFIX
from trainer.providers.models import MODELS, ModelInfo
from trainer.providers.ports import AGENT_HEADER, AgentModel, ModelRequest, ModelResponse
from trainer.store.models import Session

CACHE_TTL_S = 300.0
CACHE_TTL_1H_S = 3600.0
LOOKBACK_BLOCKS = 20
MAX_BREAKPOINTS = 4
CACHE_TTLS = ("5m", "1h")
OPENAI_MIN_CACHED = 1024
OPENAI_CACHE_STEP = 128
REJECTED_SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
INVALID_OUTPUT: dict[str, Any] = {"_fake_invalid": True}
FORCED_TOOL_CHOICE_ERROR = 'tool_choice: type "tool" and "any" are not supported for this model.'
PREFILL_ERROR = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
INVALID_SIGNATURE_ERROR = (
    "messages.{index}.content.{block}: Invalid `signature` in `thinking` block. The block is bound to a "
    "different conversation. Remove the block, or set "
    '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)
MISSING_THINKING_ERROR = (
    "messages.{index}.content: the thinking blocks of the latest assistant message must be passed back "
    "unchanged while the tool loop continues; {missing} of them are missing or altered."
)
UPDATES_BETA = "thinking-display-updates-2026-08-18"
BINDING_BETA = "thinking-binding-controls-2026-08-01"
NO_THINKING_EFFORTS = ("xhigh", "max")
"""Efforts at which a model that can turn thinking off (disabled / between_tools) refuses to."""
REFUSAL_DETAILS: dict[str, Any] = {"type": "refusal", "category": "general_harms", "explanation": None}


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def estimate_tokens(text: str) -> int:
    return len(text) // 4


def thinking_error(body: dict[str, Any], model: ModelInfo | None, headers: dict[str, str]) -> str | None:
    """What the model's API refuses about the request's `thinking`, tool choice or last message."""
    if model is None:
        return None
    choice = body.get("tool_choice") or {}
    if choice.get("type") in ("any", "tool") and not model.forced_tool_choice:
        return FORCED_TOOL_CHOICE_ERROR
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "assistant" and not model.assistant_prefill:
        return PREFILL_ERROR
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or not model.thinks:
        return None
    kind = str(thinking.get("type"))
    if kind not in model.thinking_modes:
        return (
            f'"thinking.type.{kind}" is not supported for this model. Use "thinking.type.adaptive" and '
            '"output_config.effort" to control thinking behavior.'
        )
    effort = (body.get("output_config") or {}).get("effort")
    if kind in ("disabled", "between_tools") and effort in NO_THINKING_EFFORTS:
        return f'"thinking.type.{kind}" is not supported with output_config.effort "{effort}".'
    binding = (thinking.get("block_binding") or {}).get("prefix_mismatch_behavior")
    if binding is not None and BINDING_BETA not in headers.get("anthropic-beta", ""):
        return f'thinking.block_binding: requires the anthropic-beta header "{BINDING_BETA}".'
    if binding not in (None, "drop_block", "error"):
        return "thinking.block_binding.prefix_mismatch_behavior: Input should be 'drop_block' or 'error'"
    display = thinking.get("display")
    if display == "updates" and UPDATES_BETA not in headers.get("anthropic-beta", ""):
        return f'thinking.display: "updates" requires the anthropic-beta header "{UPDATES_BETA}".'
    if display not in (None, "summarized", "omitted", "updates"):
        return "thinking.display: Input should be 'summarized' or 'omitted'"
    return None


def prefix_digest(body: dict[str, Any], messages: int) -> str:
    """What a thinking block written after the first `messages` messages of the request is bound to:
    the model, tools, system and those messages, without their cache breakpoints."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k != "cache_control"}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    system = body.get("system")
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    prefix = [
        body.get("model"),
        body.get("tools") or [],
        system or [],
        (body.get("messages") or [])[:messages],
    ]
    return hashlib.sha256(_dumps(clean(prefix)).encode()).hexdigest()


def thinks_on(body: dict[str, Any], model: ModelInfo | None) -> bool:
    """Whether the model thinks on this request (adaptive: on unless turned off)."""
    if model is None or not model.thinks:
        return False
    kind = (body.get("thinking") or {}).get("type", "adaptive")
    return kind in ("adaptive", "between_tools")


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float = 0.0
    """`time.monotonic()` when the request arrived (one clock for every process of the machine)."""
    answered_at: float | None = None
    """When its response was sent in full."""
    usage: dict[str, Any] | None = None
    """The usage its chat completion reported (OpenAI), for measurements."""


@dataclass
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    cache_creation_1h_input_tokens: int = 0


@dataclass
class _Segment:
    text: str
    cache_control: dict[str, Any] | None
    section: str = "messages"


def prompt_segments(body: dict[str, Any]) -> list[_Segment]:
    """The request in cache order (tools, system, messages), one segment per block, with the
    block's cache_control (stripped from the text so moving a breakpoint keeps the prefix)."""
    segments: list[_Segment] = []

    def add(prefix: str, block: Any) -> None:
        section = {"tool:": "tools", "system:": "system"}.get(prefix, "messages")
        if isinstance(block, dict):
            control = block.get("cache_control")
            clean = {k: v for k, v in block.items() if k != "cache_control"}
            control = control if isinstance(control, dict) else None
            segments.append(_Segment(prefix + _dumps(clean), control, section))
        else:
            segments.append(_Segment(prefix + _dumps(block), None, section))

    for tool in body.get("tools") or []:
        add("tool:", tool)
    system = body.get("system")
    if isinstance(system, str):
        add("system:", {"type": "text", "text": system})
    else:
        for block in system or []:
            add("system:", block)
    for message in body.get("messages") or []:
        role = str(message.get("role"))
        content = message.get("content")
        if isinstance(content, str):
            add(f"{role}:", {"type": "text", "text": content})
        else:
            for block in content or []:
                add(f"{role}:", block)
    return segments


def counted_tokens(segments: list[_Segment], model_id: str) -> int:
    """The tokens the fake counts for these segments on this model (its tokenizer factor)."""
    model = MODELS.get(model_id)
    factor = model.tokenizer_factor if model else 1.0
    return int(sum(len(s.text) for s in segments) * factor) // 4


def static_prefix_tokens(body: dict[str, Any]) -> int:
    """The tokens of a request's tools and system blocks (what every call of every user starts
    with when the system holds only the shared prompt), counted as the fake counts usage."""
    segments = [s for s in prompt_segments(body) if s.section in ("tools", "system")]
    return counted_tokens(segments, str(body.get("model")))


def cache_control_error(body: dict[str, Any]) -> str | None:
    """What the real API refuses about a request's breakpoints: more than four, an unknown type or
    TTL, or a 1-hour breakpoint after a 5-minute one."""
    controls = [s.cache_control for s in prompt_segments(body) if s.cache_control is not None]
    if len(controls) > MAX_BREAKPOINTS:
        found = len(controls)
        return f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
    seen_5m = False
    for control in controls:
        if control.get("type") != "ephemeral":
            return "cache_control.type: Input should be 'ephemeral'"
        ttl = control.get("ttl", "5m")
        if ttl not in CACHE_TTLS:
            return "cache_control.ttl: Input should be '5m' or '1h'"
        if ttl == "1h" and seen_5m:
            return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"
        seen_5m = seen_5m or ttl == "5m"
    return None


@dataclass
class _Entry:
    expires_at: float
    ttl_s: float


class PromptCache:
    """Anthropic's prompt cache, shared by every request to one server as the real one is by an
    organisation. An entry is the prefix (model, then tools, system and messages in that order;
    tool_choice counts for the messages) up to a breakpoint at or above the model's minimum
    cacheable length; it lives 5 minutes, or an hour when the breakpoint says ttl "1h", and each
    read refreshes it. A read is looked up at each breakpoint and the 19 blocks before it. Writes
    are billed per breakpoint: the tokens up to a 1-hour breakpoint as 1-hour writes, the rest as
    5-minute ones."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, ttl_s: float = CACHE_TTL_S) -> None:
        self._clock = clock
        self._ttl = ttl_s
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _ttl_of(self, control: dict[str, Any] | None) -> float:
        return CACHE_TTL_1H_S if (control or {}).get("ttl") == "1h" else self._ttl

    def account(self, body: dict[str, Any], min_tokens: int, tokenizer_factor: float = 1.0) -> CacheUsage:
        segments = prompt_segments(body)
        digest = hashlib.sha256(_dumps(str(body.get("model"))).encode())
        hashes: list[str] = []
        tokens: list[int] = []
        chars = 0
        in_messages = False
        for segment in segments:
            if segment.section == "messages" and not in_messages:
                in_messages = True
                digest.update(_dumps(body.get("tool_choice")).encode())
            digest.update(segment.text.encode())
            chars += len(segment.text)
            hashes.append(digest.copy().hexdigest())
            tokens.append(int(chars * tokenizer_factor) // 4)
        total = int(chars * tokenizer_factor) // 4
        breakpoints = [i for i, s in enumerate(segments) if s.cache_control]
        now = self._clock()
        with self._lock:
            self._entries = {h: e for h, e in self._entries.items() if e.expires_at > now}
            read = 0
            for bp in breakpoints:
                for j in range(bp, max(-1, bp - LOOKBACK_BLOCKS), -1):
                    entry = self._entries.get(hashes[j])
                    if entry is not None:
                        entry.expires_at = now + entry.ttl_s
                        read = max(read, tokens[j])
                        break
            created = created_1h = 0
            covered = read
            for bp in breakpoints:
                if tokens[bp] < min_tokens:
                    continue
                control = segments[bp].cache_control or {}
                if tokens[bp] > covered:
                    created += tokens[bp] - covered
                    if control.get("ttl") == "1h":
                        created_1h += tokens[bp] - covered
                    covered = tokens[bp]
                ttl = self._ttl_of(control)
                kept = self._entries.get(hashes[bp])
                ttl = max(ttl, kept.ttl_s) if kept else ttl
                self._entries[hashes[bp]] = _Entry(now + ttl, ttl)
        return CacheUsage(
            input_tokens=max(0, total - read - created),
            cache_creation_input_tokens=created,
            cache_read_input_tokens=read,
            cache_creation_1h_input_tokens=created_1h,
        )


class DemoPlanner:
    """A stand-in planner for a server started without a policy: a fixed bodyweight workout."""

    async def compose_workout(self, user_id: str, request_text: str) -> ComposedWorkout:
        def ex(order: int, name: str, muscle: str, reps: int) -> dict[str, Any]:
            return {
                "exercise_name": name,
                "exercise_type": "reps",
                "order": order,
                "muscles_utilized": [{"muscle": muscle, "share": 1.0}],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                "reasoning": "Bodyweight staple",
                "equipment": [],
                "sets": 3,
                "reps": [reps, reps, reps],
                "rest_sec": 60,
            }

        workout = Workout.model_validate(
            {
                "title": "Bodyweight Basics",
                "exercises": [ex(1, "Push-up", "Chest", 12), ex(2, "Air Squat", "Quadriceps", 15)],
            }
        )
        return ComposedWorkout(workout)

    async def current_workout(self, session_id: str) -> dict[str, Any] | None:
        return None

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise:
        workout = (await self.compose_workout(user_id, request_text)).workout
        current = str(exercise.get("exercise_name", ""))
        name = "Knee Push-up" if current == "Incline Push-up" else "Incline Push-up"
        return workout.exercises[0].model_copy(
            update={"exercise_name": name, "order": int(exercise.get("order") or 1)}
        )

    async def compose_exercise(self, user_id: str, name: str) -> Exercise:
        workout = (await self.compose_workout(user_id, name)).workout
        return workout.exercises[0].model_copy(update={"exercise_name": name.title()})

    async def user_records(self, user_id: str) -> UserRecords:
        return UserRecords()


class ResultJournal(TurnHooks):
    """The typed results of recent tool calls by call id. The agent loop records them (on_tool_end);
    the fake server's policy, which sees only the HTTP request, reads them back — the same results the
    in-process offline model finds in its ModelRequest."""

    def __init__(self, capacity: int = 4096) -> None:
        self._results: OrderedDict[str, BaseModel] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    async def on_tool_end(self, session: Session, call_id: str, outcome: ToolOutcome) -> None:
        with self._lock:
            self._results[call_id] = outcome.result
            while len(self._results) > self._capacity:
                self._results.popitem(last=False)

    def results_for(self, messages: list[dict[str, Any]]) -> dict[str, BaseModel]:
        """The journalled results of the tool calls in these messages."""
        found: dict[str, BaseModel] = {}
        with self._lock:
            for message in messages:
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        call_id = str(block.get("id"))
                        if call_id in self._results:
                            found[call_id] = self._results[call_id]
        return found


@dataclass
class _Failures:
    stream_error_next: bool = False
    statuses: list[int] = field(default_factory=list)


class FakeLLMServer:
    """`with FakeLLMServer(policy) as server:` then point ANTHROPIC_BASE_URL at `server.base_url`
    and OPENAI_BASE_URL at `server.openai_base_url`. `policy_loop` runs the policy on an existing
    event loop (when the policy's planner is bound to it)."""

    def __init__(
        self,
        policy: AgentModel | None = None,
        *,
        latency_s: float = 0.0,
        simulate_cache: bool = True,
        api_key: str | None = None,
        chunk_chars: int = 12,
        policy_loop: asyncio.AbstractEventLoop | None = None,
        clock: Callable[[], float] = time.monotonic,
        journal: ResultJournal | None = None,
        agents: AgentRegistry | None = None,
    ) -> None:
        self.policy: AgentModel = policy or OfflineAgentModel(DemoPlanner())
        self.agents = agents
        """The registry whose offline implementations answer agent requests (default: the system's)."""
        self.fail_next_structured_with_invalid = 0
        self.break_next_tool_arguments = 0
        """The next N chat answers that call a tool call it with arguments no tool takes
        (`{"_fake_invalid": true}`): a first answer the chat loop must reject and repair."""
        self.journal = journal
        self.latency_s = latency_s
        self.simulate_cache = simulate_cache
        self.api_key = api_key
        self.chunk_chars = max(1, chunk_chars)
        self.policy_loop = policy_loop
        self.cache = PromptCache(clock)
        self._clock = clock
        self._openai_prefixes: dict[str, float] = {}
        self.requests: list[RecordedRequest] = []
        self.fail_next_stream_with_error = False
        self.fail_next_with_status: list[int] = []
        self.refuse_next = 0
        self.cut_next_at_max_tokens = 0
        self._signing_key = uuid.uuid4().bytes
        self._thinking_by_call: dict[str, dict[str, Any]] = {}
        """The thinking block issued before each tool call, by call id."""
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake LLM server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    def anthropic_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/messages"]

    def start(self) -> Self:
        if self._server is not None:
            return self
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> RecordedRequest:
        request = RecordedRequest(path, headers, body, received_at=time.monotonic())
        with self._lock:
            self.requests.append(request)
        return request

    def timings(self) -> list[dict[str, Any]]:
        """Path, arrival and answer time of every request, oldest first (`GET /_fake/timings`)."""
        with self._lock:
            return [
                {"path": r.path, "received_at": r.received_at, "answered_at": r.answered_at}
                for r in self.requests
            ]

    def take_failure(self) -> _Failures:
        with self._lock:
            failures = _Failures(self.fail_next_stream_with_error, list(self.fail_next_with_status[:1]))
            self.fail_next_stream_with_error = False
            self.fail_next_with_status = self.fail_next_with_status[1:]
        return failures

    def take_refusal(self) -> bool:
        with self._lock:
            refuse = self.refuse_next > 0
            self.refuse_next -= int(refuse)
        return refuse

    def take_cut(self) -> bool:
        with self._lock:
            cut = self.cut_next_at_max_tokens > 0
            self.cut_next_at_max_tokens -= int(cut)
        return cut

    def _signature(self, model: str, thinking: str, call_id: str, prefix: str) -> str:
        message = _dumps([model, thinking, call_id, prefix]).encode()
        return hmac.new(self._signing_key, message, hashlib.sha256).hexdigest()

    def thinking_block(
        self, body: dict[str, Any], model: ModelInfo, call_id: str, tool: str
    ) -> dict[str, Any]:
        """The signed thinking block before a tool call (`call_id` "" and `tool` "": before a written
        answer): empty text at the default display; a progress update before a call where the request
        asks for a display that returns text."""
        display = (body.get("thinking") or {}).get("display")
        text = ""
        if tool and display == "summarized":
            text = f"The user's request needs {tool}."
        elif tool and display == "updates" and model.thinking_text_between_tools:
            text = f"Working on it ({tool.replace('_', ' ')}). "
        prefix = prefix_digest(body, len(body.get("messages") or []))
        signature = self._signature(model.id, text, call_id, prefix)
        block = {"type": "thinking", "thinking": text, "signature": signature}
        if call_id:
            with self._lock:
                self._thinking_by_call[call_id] = block
                while len(self._thinking_by_call) > 4096:
                    self._thinking_by_call.pop(next(iter(self._thinking_by_call)))
        return block

    def replayed_thinking_error(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        """A 400 message when a thinking block sent back does not match its signature (altered, or its
        prefix changed since it was written), or when an assistant message of the running tool loop
        lacks the block its tool call came with. With `drop_block`, a mismatched block before the
        running tool loop is dropped from the request instead (as the API does)."""
        messages = list(body.get("messages") or [])
        model = str(body.get("model"))
        binding = ((body.get("thinking") or {}).get("block_binding") or {}).get("prefix_mismatch_behavior")
        drop = binding == "drop_block" and BINDING_BETA in headers.get("anthropic-beta", "")
        loop_start = 0
        for index, message in enumerate(messages):
            content = message.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text"}]
            if message.get("role") == "user" and any(b.get("type") != "tool_result" for b in blocks):
                loop_start = index
        for index, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") != "assistant" or not isinstance(content, list):
                continue
            calls = [b for b in content if b.get("type") == "tool_use"]
            prefix = prefix_digest(body, index)
            kept: list[dict[str, Any]] = []
            for number, block in enumerate(content):
                if block.get("type") == "thinking":
                    owner = calls[0].get("id") if calls else ""
                    expected = self._signature(model, str(block.get("thinking")), str(owner), prefix)
                    if not hmac.compare_digest(str(block.get("signature")), expected):
                        if drop and index < loop_start:
                            continue
                        return INVALID_SIGNATURE_ERROR.format(index=index, block=number)
                kept.append(block)
            if len(kept) != len(content):
                message["content"] = content = kept
            if index < loop_start:
                continue
            with self._lock:
                issued = [self._thinking_by_call.get(str(c.get("id"))) for c in calls]
            missing = [b for b in issued if b is not None and b not in content]
            if missing:
                return MISSING_THINKING_ERROR.format(index=index, missing=len(missing))
        return None

    def seen_openai_prefix(self, text: str) -> bool:
        """OpenAI caches long prompt prefixes automatically; True when this one was seen recently."""
        if not self.simulate_cache:
            return False
        key = hashlib.sha256(text.encode()).hexdigest()
        now = self._clock()
        with self._lock:
            seen = key in self._openai_prefixes and now - self._openai_prefixes[key] < CACHE_TTL_S
            self._openai_prefixes[key] = now
        return seen

    def decide(self, body: dict[str, Any]) -> ModelResponse:
        metadata = body.get("metadata") or {}
        request = ModelRequest(
            model=str(body["model"]),
            system=_as_blocks(body.get("system")),
            tools=list(body.get("tools") or []),
            messages=list(body["messages"]),
            max_tokens=int(body["max_tokens"]),
            tool_choice=dict(body.get("tool_choice") or {}),
            user_id=metadata.get("user_id"),
            results=self.journal.results_for(list(body["messages"])) if self.journal else {},
        )
        coro = self.policy.complete(request)
        if self.policy_loop is not None:
            return asyncio.run_coroutine_threadsafe(coro, self.policy_loop).result(timeout=60)
        return asyncio.run(coro)

    def take_broken_arguments(self) -> bool:
        with self._lock:
            broken = int(self.break_next_tool_arguments) > 0
            if broken:
                self.break_next_tool_arguments = int(self.break_next_tool_arguments) - 1
        return broken

    def take_invalid_structured(self) -> bool:
        with self._lock:
            invalid = int(self.fail_next_structured_with_invalid) > 0
            if invalid:
                self.fail_next_structured_with_invalid = int(self.fail_next_structured_with_invalid) - 1
        return invalid

    def registry(self) -> AgentRegistry:
        with self._lock:
            if self.agents is None:
                from trainer.container import build_agent_registry

                self.agents = build_agent_registry()
            return self.agents

    def structured_output(self, agent: str, call: _AgentCall) -> Any:
        """The agent's offline answer to the request (an output or a ToolRequest)."""
        context = OfflineContext(agent, call.context, call.tool_results, call.attempt)
        coro = offline_output(self.registry(), agent, call.input, context)
        if self.policy_loop is not None:
            return asyncio.run_coroutine_threadsafe(coro, self.policy_loop).result(timeout=60)
        return asyncio.run(coro)

    def usage_for(self, body: dict[str, Any]) -> CacheUsage:
        model = MODELS.get(str(body.get("model")))
        min_tokens = model.min_cacheable_tokens if model else 1024
        factor = model.tokenizer_factor if model else 1.0
        if self.simulate_cache:
            return self.cache.account(body, min_tokens, factor)
        total = int(sum(len(s.text) for s in prompt_segments(body)) * factor) // 4
        return CacheUsage(input_tokens=total, cache_creation_input_tokens=0, cache_read_input_tokens=0)


def output_tokens_for(body: dict[str, Any], written: str) -> int:
    """Output tokens of what the fake wrote, with the model's tokenizer factor."""
    model = MODELS.get(str(body.get("model")))
    factor = model.tokenizer_factor if model else 1.0
    return max(1, int(len(written) * factor) // 4)


@dataclass
class _AgentCall:
    """What an agent request carries for its offline implementation."""

    input: Any
    context: tuple[str, ...]
    tool_results: tuple[ToolExchange, ...]
    attempt: int


def _split_first_message(text_blocks: list[str]) -> tuple[Any, tuple[str, ...]]:
    """The input and the context blocks of an agent's first user message."""
    joined = "\n\n".join(text_blocks)
    start, end = joined.rfind(INPUT_OPEN), joined.rfind(INPUT_CLOSE)
    if start < 0 or end < start:
        raise ValueError("the request carries no agent input")
    value = parse_input(joined[start : end + len(INPUT_CLOSE)])
    before = joined[:start].strip()
    context = tuple(
        b.strip() for b in re.split(r"\n\n(?=" + re.escape(CONTEXT_OPEN) + ")", before) if b.strip()
    )
    return value, context


def _text_of(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def anthropic_agent_call(body: dict[str, Any]) -> _AgentCall:
    messages = list(body.get("messages") or [])
    value, context = _split_first_message(_text_of(messages[0].get("content")) if messages else [])
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    exchanges: list[ToolExchange] = []
    attempt = 1
    for message in messages[1:]:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and not str(block.get("name")).startswith(OUTPUT_TOOL_PREFIX):
                uses[str(block.get("id"))] = (str(block.get("name")), dict(block.get("input") or {}))
            elif block.get("type") == "tool_result" and str(block.get("tool_use_id")) in uses:
                name, arguments = uses[str(block.get("tool_use_id"))]
                result = block.get("content")
                text = result if isinstance(result, str) else "".join(_text_of(result))
                exchanges.append(ToolExchange(name, arguments, text, bool(block.get("is_error"))))
        if message.get("role") == "user" and FEEDBACK_PREFIX in json.dumps(content):
            attempt += 1
    return _AgentCall(value, context, tuple(exchanges), attempt)


def openai_agent_call(body: dict[str, Any]) -> _AgentCall:
    messages = [m for m in body.get("messages") or [] if m.get("role") != "system"]
    value, context = _split_first_message(_text_of(messages[0].get("content")) if messages else [])
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    exchanges: list[ToolExchange] = []
    attempt = 1
    for message in messages[1:]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError:
                arguments = {}
            uses[str(call.get("id"))] = (
                str(function.get("name")),
                arguments if isinstance(arguments, dict) else {},
            )
        if message.get("role") == "tool" and str(message.get("tool_call_id")) in uses:
            name, arguments = uses[str(message.get("tool_call_id"))]
            exchanges.append(ToolExchange(name, arguments, "".join(_text_of(message.get("content")))))
        if message.get("role") == "user" and FEEDBACK_PREFIX in "".join(_text_of(message.get("content"))):
            attempt += 1
    return _AgentCall(value, context, tuple(exchanges), attempt)


def _as_blocks(system: Any) -> list[dict[str, Any]]:
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    return list(system or [])


def _usage_json(usage: CacheUsage, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": usage.cache_creation_input_tokens
            - usage.cache_creation_1h_input_tokens,
            "ephemeral_1h_input_tokens": usage.cache_creation_1h_input_tokens,
        },
    }


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


ERROR_KINDS = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}  # fmt: skip


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        _recorded: RecordedRequest | None = None

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._json(400, _error_body("invalid_request_error", "body is not JSON"))
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            # a copy: what the client sent (answering may drop stale thinking blocks from `body`)
            recorded = server.record(self.path, headers, json.loads(raw or b"{}"))
            self._recorded = recorded
            agent = headers.get(AGENT_HEADER)
            try:
                if not self._authorized(headers):
                    self._json(401, _error_body("authentication_error", "invalid x-api-key"))
                elif agent and self.path in ("/v1/messages", "/v1/chat/completions"):
                    self._agent(agent, body, headers)
                elif self.path == "/v1/messages":
                    self._messages(body, headers)
                elif self.path == "/v1/chat/completions":
                    self._chat_completions(body)
                else:
                    self._json(404, _error_body("not_found_error", f"no route {self.path}"))
            finally:
                recorded.answered_at = time.monotonic()

        def do_GET(self) -> None:
            if self.path == "/_fake/timings":
                self._json(200, {"requests": server.timings()})
            else:
                self._json(404, _error_body("not_found_error", f"no route {self.path}"))

        def _authorized(self, headers: dict[str, str]) -> bool:
            bearer = headers.get("authorization", "")
            key = bearer[7:] if bearer.lower().startswith("bearer ") else headers.get("x-api-key", "")
            if not key:
                return False
            return server.api_key is None or key == server.api_key

        def _json(self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:12]}")
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _refused_request(self, body: dict[str, Any], headers: dict[str, str]) -> bool:
            """Answers a 400 for what the model's API rejects; True when it did."""
            rejected = [p for p in REJECTED_SAMPLING_PARAMS if p in body]
            if rejected:
                message = f"{rejected[0]}: not supported by this API version"
                self._json(400, _error_body("invalid_request_error", message))
                return True
            missing = [k for k in ("model", "max_tokens", "messages") if k not in body]
            if missing:
                self._json(400, _error_body("invalid_request_error", f"{missing[0]}: Field required"))
                return True
            model = MODELS.get(str(body.get("model")))
            refused = (
                cache_control_error(body)
                or thinking_error(body, model, headers)
                or server.replayed_thinking_error(body, headers)
            )
            if refused:
                self._json(400, _error_body("invalid_request_error", refused))
                return True
            return False

        def _messages(self, body: dict[str, Any], headers: dict[str, str]) -> None:
            if self._refused_request(body, headers):
                return
            failures = server.take_failure()
            if failures.statuses:
                status = failures.statuses[0]
                error = _error_body(ERROR_KINDS.get(status, "api_error"), f"simulated {status}")
                self._json(status, error, {"retry-after-ms": "1"})
                return
            if server.latency_s:
                time.sleep(server.latency_s)
            if self._special_stop(body, failures):
                return
            response = server.decide(body)
            call = response.tool_call
            blocks: list[dict[str, Any]] = []
            model = MODELS.get(str(body.get("model")))
            if call is not None:
                if model is not None and thinks_on(body, model):
                    blocks.append(server.thinking_block(body, model, call.id, call.name))
                arguments = dict(INVALID_OUTPUT) if server.take_broken_arguments() else call.arguments
                blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
            else:
                blocks.append({"type": "text", "text": response.text or "..."})
            self._send(body, blocks, "tool_use" if call else "end_turn", failures, paced=True)

        def _special_stop(self, body: dict[str, Any], failures: _Failures | None) -> bool:
            """A refusal or a cut-off answer, when one was asked for; True when it was sent."""
            if server.take_refusal():
                self._send(body, [], "refusal", failures, stop_details=dict(REFUSAL_DETAILS))
                return True
            if server.take_cut():
                self._send(body, [{"type": "text", "text": "Let me think about th"}], "max_tokens", failures)
                return True
            return False

        def _send(
            self,
            body: dict[str, Any],
            blocks: list[dict[str, Any]],
            stop: str,
            failures: _Failures | None = None,
            *,
            stop_details: dict[str, Any] | None = None,
            paced: bool = False,
        ) -> None:
            """One message, as JSON or as the SSE events the SDK reads (a stream broken off in the last
            block when `failures` asks for it; with `paced`, a tenth of the latency between pieces, as
            a model writing)."""
            usage = server.usage_for(body)
            written = "".join(
                _dumps(b["input"])
                if b["type"] == "tool_use"
                else str(b.get("text") or b.get("thinking") or "")
                for b in blocks
            )
            output_tokens = output_tokens_for(body, written) if blocks else 0
            message_id = f"msg_fake_{uuid.uuid4().hex[:20]}"
            message = {"id": message_id, "type": "message", "role": "assistant", "model": body["model"],
                       "stop_reason": stop, "stop_sequence": None}  # fmt: skip
            if stop_details is not None:
                message["stop_details"] = stop_details
            if not body.get("stream"):
                self._json(200, {**message, "content": blocks, "usage": _usage_json(usage, output_tokens)})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:12]}")
            self.end_headers()
            start = {**message, "content": [], "stop_reason": None, "usage": _usage_json(usage, 1)}
            start.pop("stop_details", None)
            self._event("message_start", {"type": "message_start", "message": start})
            for index, block in enumerate(blocks):
                last = index == len(blocks) - 1
                if block["type"] == "tool_use":
                    opened = {**block, "input": {}}
                    text, kind, key = _dumps(block["input"]), "input_json_delta", "partial_json"
                elif block["type"] == "thinking":
                    opened = {"type": "thinking", "thinking": "", "signature": ""}
                    text, kind, key = str(block["thinking"]), "thinking_delta", "thinking"
                else:
                    opened = {"type": "text", "text": ""}
                    text, kind, key = str(block.get("text") or ""), "text_delta", "text"
                self._event(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": opened},
                )
                if index == 0:
                    self._event("ping", {"type": "ping"})
                step = server.chunk_chars
                pieces = [text[i : i + step] for i in range(0, len(text), step)] or (
                    [""] if kind != "thinking_delta" else []
                )
                for number, piece in enumerate(pieces):
                    broken = last and failures is not None and failures.stream_error_next
                    if broken and number == min(2, len(pieces) - 1):
                        self._event("error", _error_body("overloaded_error", "Overloaded"))
                        return
                    delta = {"type": kind, key: piece}
                    self._event(
                        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
                    )
                    if paced and server.latency_s:
                        time.sleep(server.latency_s / 10)
                if block["type"] == "thinking":
                    delta = {"type": "signature_delta", "signature": block["signature"]}
                    self._event(
                        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
                    )
                self._event("content_block_stop", {"type": "content_block_stop", "index": index})
            final_usage = _usage_json(usage, output_tokens)
            final_usage.pop("cache_creation")
            delta_event: dict[str, Any] = {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
            }
            if stop_details is not None:
                delta_event["delta"]["stop_details"] = stop_details
            self._event("message_delta", {**delta_event, "usage": final_usage})
            self._event("message_stop", {"type": "message_stop"})

        def _event(self, name: str, payload: dict[str, Any]) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        def _agent(self, agent: str, body: dict[str, Any], headers: dict[str, str]) -> None:
            anthropic = self.path == "/v1/messages"
            if anthropic and self._refused_request(body, headers):
                return
            if anthropic and self._special_stop(body, None):
                return
            try:
                call = anthropic_agent_call(body) if anthropic else openai_agent_call(body)
                output = server.structured_output(agent, call)
                reply = reply_from_output(output)
            except Exception as exc:
                self._json(400, _error_body("invalid_request_error", f"{type(exc).__name__}: {exc}"))
                return
            if server.latency_s:
                time.sleep(server.latency_s)
            if not reply.tool_calls and server.take_invalid_structured():
                reply.data = dict(INVALID_OUTPUT) if reply.data is not None else None
                reply.text = "" if reply.data is None else None
            if anthropic:
                self._agent_message(body, reply.data, reply.text, reply.tool_calls)
            else:
                self._agent_completion(body, reply.data, reply.text, reply.tool_calls)

        def _agent_message(
            self, body: dict[str, Any], data: dict[str, Any] | None, text: str | None, calls: list[Any]
        ) -> None:
            blocks: list[dict[str, Any]] = [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls
            ]
            structured = ((body.get("output_config") or {}).get("format") or {}).get("type") == "json_schema"
            if data is not None and not calls and structured:
                blocks.append({"type": "text", "text": json.dumps(data)})
            elif data is not None and not calls:
                emit = next(
                    (
                        str(t["name"])
                        for t in body.get("tools") or []
                        if str(t.get("name")).startswith(OUTPUT_TOOL_PREFIX)
                    ),
                    OUTPUT_TOOL_PREFIX + "output",
                )
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_fake_{uuid.uuid4().hex[:16]}",
                        "name": emit,
                        "input": data,
                    }
                )
            if not blocks:
                blocks.append({"type": "text", "text": text or ""})
            model = MODELS.get(str(body.get("model")))
            if model is not None and thinks_on(body, model):
                # the model thinks before it answers, whether with a tool call or in writing
                first = blocks[0] if blocks[0]["type"] == "tool_use" else {"id": "", "name": ""}
                blocks.insert(0, server.thinking_block(body, model, str(first["id"]), str(first["name"])))
            stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
            self._send(body, blocks, stop)

        def _agent_completion(
            self, body: dict[str, Any], data: dict[str, Any] | None, text: str | None, calls: list[Any]
        ) -> None:
            content = json.dumps(data) if data is not None else (text or "")
            message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
            if calls:
                message["content"] = None
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in calls
                ]
            self._completion(
                body, message, max(1, len(json.dumps(message)) // 4), "tool_calls" if calls else "stop"
            )

        def _chat_completions(self, body: dict[str, Any]) -> None:
            if server.latency_s:
                time.sleep(server.latency_s)
            messages = body.get("messages") or []
            user_text = "\n".join(str(m.get("content")) for m in messages if m.get("role") == "user")
            message_m = re.search(r"<user_message>\n?(.*?)\n?</user_message>", user_text, re.DOTALL)
            known_m = re.search(
                r"<knowledge_already_in_context>\n?(.*?)\n?</knowledge_already_in_context>",
                user_text,
                re.DOTALL,
            )
            existing: list[dict[str, Any]] = []
            for line in (known_m.group(1) if known_m else "").splitlines():
                if m := re.match(r"-\s+(\w+)(?:\s+\((.*)\))?\s*$", line.strip()):
                    try:
                        params = json.loads(m.group(2)) if m.group(2) else {}
                    except ValueError:
                        params = {}
                    existing.append({"source": m.group(1), "params": params})
            selection = decide(message_m.group(1) if message_m else user_text, existing)
            content = selection.model_dump_json()
            message = {"role": "assistant", "content": content, "refusal": None}
            self._completion(body, message, max(1, len(content) // 4), "stop")

        def _completion(
            self, body: dict[str, Any], message: dict[str, Any], completion_tokens: int, finish: str
        ) -> None:
            """A chat.completion with the fake's token counts and OpenAI's automatic prefix caching."""
            messages = body.get("messages") or []
            prompt_tokens = sum(len(str(m.get("content"))) for m in messages) // 4
            system_text = str(messages[0].get("content")) if messages else ""
            # a hit needs a cached prefix (here the system message) of at least 1,024 tokens, and
            # counts in 128-token steps
            shared = min(prompt_tokens, estimate_tokens(system_text))
            cached = 0
            if server.seen_openai_prefix(system_text) and shared >= OPENAI_MIN_CACHED:
                cached = shared // OPENAI_CACHE_STEP * OPENAI_CACHE_STEP
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached},
            }
            if self._recorded is not None:
                self._recorded.usage = usage
            self._json(
                200,
                {
                    "id": f"chatcmpl-fake{uuid.uuid4().hex[:12]}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model"),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                    "usage": usage,
                },
            )

    return Handler
