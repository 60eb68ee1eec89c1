"""AnthropicAgentModel through the real anthropic SDK: httpx2.MockTransport as http_client, and
the loopback FakeLLMServer via base_url."""

from __future__ import annotations

import json
from typing import Any, cast

import httpx2
import pytest
from trainer.agents.tools import ToolOutcome
from trainer.providers.anthropic import AnthropicAgentModel
from trainer.providers.ports import ModelError, ModelRequest
from trainer.settings import Settings
from trainer.store.models import Session
from trainer.tools.current_workout import ExerciseBrief
from trainer.tools.generate_workout import GeneratedSummary, GenerateResult
from trainer_dev.local.fake_llm import FakeLLMServer, ResultJournal

API_KEY = "sk-ant-test-secret-0123456789"
MOCKED_API = "http://127.0.0.1:9"
"""The base URL of the clients on httpx2.MockTransport: loopback, as model requests are off in tests."""
NOTIFY_TEXT = 'Here is your "Push Day" workout:\n4 exercises, about 45 minutes. Ready when you are!'


def _settings(base_url: str = MOCKED_API) -> Settings:
    return Settings(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=base_url)


def _request(**overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": "claude-haiku-4-5",
        "system": [
            {"type": "text", "text": "You are a trainer.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "<user_data></user_data>", "cache_control": {"type": "ephemeral"}},
        ],
        "tools": [
            {
                "name": "message_notify_user",
                "description": "Tell the user something",
                "input_schema": {"type": "object", "properties": {"message": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Give me a push workout", "cache_control": {"type": "ephemeral"}}
                ],
            }
        ],
        "user_id": "user-123",
    }
    values.update(overrides)
    return ModelRequest(**values)


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def _tool_stream(
    name: str, arguments: dict[str, Any], *, chunk: int = 9, error_after: int | None = None
) -> bytes:
    args_json = json.dumps(arguments)
    pieces = [args_json[i : i + chunk] for i in range(0, len(args_json), chunk)]
    usage = {
        "input_tokens": 120,
        "output_tokens": 1,
        "cache_creation_input_tokens": 5000,
        "cache_read_input_tokens": 7000,
        "cache_creation": {"ephemeral_5m_input_tokens": 4000, "ephemeral_1h_input_tokens": 1000},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-haiku-4-5",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_01", "name": name, "input": {}},
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for number, piece in enumerate(pieces):
        if error_after is not None and number == error_after:
            events.append(
                ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
            )
            return _sse(events)
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 42},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


class Recorder:
    def __init__(self, *responses: httpx2.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.responses.pop(0)

    def body(self, index: int = 0) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def _sse_response(payload: bytes) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=payload)


def _model(recorder: Recorder) -> AnthropicAgentModel:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(recorder))
    return AnthropicAgentModel(_settings(), http_client=client)


async def test_streams_message_text_progressively_and_maps_the_response() -> None:
    recorder = Recorder(_sse_response(_tool_stream("message_notify_user", {"message": NOTIFY_TEXT})))
    deltas: list[tuple[str, str]] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append((tool, text))

    response = await _model(recorder).complete(_request(), on_delta)

    assert len(deltas) >= 5
    assert {tool for tool, _ in deltas} == {"message_notify_user"}
    assert "".join(text for _, text in deltas) == NOTIFY_TEXT
    assert response.tool_call is not None
    assert response.tool_call.name == "message_notify_user"
    assert response.tool_call.id == "toolu_01"
    assert response.tool_call.arguments == {"message": NOTIFY_TEXT}
    assert response.stop_reason == "tool_use"
    assert response.usage.input_tokens == 120
    assert response.usage.output_tokens == 42
    assert response.usage.cache_creation_input_tokens == 5000
    assert response.usage.cache_creation_1h_input_tokens == 1000
    assert response.usage.cache_read_input_tokens == 7000
    assert response.raw["content"][0]["input"] == {"message": NOTIFY_TEXT}


async def test_request_body_and_headers_follow_the_contract() -> None:
    recorder = Recorder(_sse_response(_tool_stream("idle", {"reason": "done"})))

    await _model(recorder).complete(_request())

    body = recorder.body()
    for forbidden in ("temperature", "top_p", "top_k"):
        assert forbidden not in body
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert body["max_tokens"] == 8192
    assert body["stream"] is True
    assert body["metadata"] == {"user_id": "user-123"}
    assert body["model"] == "claude-haiku-4-5"
    request = recorder.requests[0]
    assert request.url.path == "/v1/messages"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["anthropic-version"] == "2026-10-21"


async def test_metadata_is_left_out_without_a_user_id() -> None:
    recorder = Recorder(_sse_response(_tool_stream("idle", {"reason": "done"})))

    await _model(recorder).complete(_request(user_id=None))

    assert "metadata" not in recorder.body()


async def test_mid_stream_error_event_is_a_retryable_model_error() -> None:
    recorder = Recorder(
        _sse_response(_tool_stream("message_notify_user", {"message": NOTIFY_TEXT}, error_after=2))
    )
    deltas: list[str] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append(text)

    with pytest.raises(ModelError) as caught:
        await _model(recorder).complete(_request(), on_delta)

    assert caught.value.retryable is True
    assert "overloaded_error" in str(caught.value)
    assert len(recorder.requests) == 1


async def test_rejected_request_is_a_final_error_without_the_key() -> None:
    error = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "messages: Field required"},
    }
    recorder = Recorder(httpx2.Response(400, json=error))

    with pytest.raises(ModelError) as caught:
        await _model(recorder).complete(_request())

    assert caught.value.retryable is False
    assert "invalid_request_error" in str(caught.value)
    assert "messages: Field required" in str(caught.value)
    assert API_KEY not in str(caught.value)


async def test_overloaded_status_is_retried_by_the_sdk() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    recorder = Recorder(
        httpx2.Response(529, json=overloaded, headers={"retry-after-ms": "1"}),
        _sse_response(_tool_stream("idle", {"reason": "done"})),
    )

    response = await _model(recorder).complete(_request())

    assert len(recorder.requests) == 2
    assert response.tool_call is not None and response.tool_call.name == "idle"


async def test_failing_delta_callback_does_not_break_the_call() -> None:
    recorder = Recorder(_sse_response(_tool_stream("message_notify_user", {"message": NOTIFY_TEXT})))
    calls: list[str] = []

    async def broken(tool: str, text: str) -> None:
        calls.append(text)
        raise ConnectionResetError("client went away")

    response = await _model(recorder).complete(_request(), broken)

    assert len(calls) == 1
    assert response.tool_call is not None and response.tool_call.arguments == {"message": NOTIFY_TEXT}


def test_missing_key_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        AnthropicAgentModel(Settings(ANTHROPIC_API_KEY=None))


# --- against the loopback fake server -----------------------------------------------------------


@pytest.fixture
def fake_server():
    with FakeLLMServer(api_key=API_KEY, chunk_chars=7, journal=ResultJournal()) as server:
        yield server


def generated(artifact_id: str) -> GenerateResult:
    return GenerateResult(
        workout_id="workout_1",
        artifact_id=artifact_id,
        title="Push",
        exercise_count=1,
        summary=GeneratedSummary(exercise_count=1, estimated_duration_min=10, muscles_targeted=["Chest"]),
        exercises=[ExerciseBrief(id="ex_aaa111", exercise_name="Push-up", exercise_type="reps", order=1)],
    )


async def test_loopback_server_drives_a_tool_call_through_the_sdk(fake_server: FakeLLMServer) -> None:
    model = AnthropicAgentModel(_settings(fake_server.base_url))

    response = await model.complete(_request())

    assert response.tool_call is not None
    assert response.tool_call.name == "generate_workout"
    assert response.tool_call.arguments["workout"]["exercises"]
    recorded = fake_server.anthropic_requests()[-1]
    assert recorded.headers["authorization"] == f"Bearer {API_KEY}"
    assert not {"temperature", "top_p", "top_k"} & set(recorded.body)


async def test_loopback_server_streams_notify_text_in_chunks(fake_server: FakeLLMServer) -> None:
    """The fake's policy reads the typed result of the earlier call from the journal the loop fills."""
    model = AnthropicAgentModel(_settings(fake_server.base_url))
    assert fake_server.journal is not None
    outcome = ToolOutcome("generate_workout", generated("art_abc123"), "", "<result/>")
    await fake_server.journal.on_tool_end(cast(Session, None), "toolu_a", outcome)
    request = _request(
        messages=[
            {"role": "user", "content": "Give me a push workout"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_a", "name": "generate_workout", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_a",
                        "content": "<result>Created 2 exercises (artifact_id=art_abc123)</result>",
                    }
                ],
            },
        ]
    )
    deltas: list[str] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append(text)

    response = await model.complete(request, on_delta)

    assert response.tool_call is not None
    assert response.tool_call.name == "message_notify_user"
    assert response.tool_call.arguments["artifact_id"] == "art_abc123"
    assert len(deltas) > 3
    assert "".join(deltas) == response.tool_call.arguments["message"]


async def test_loopback_mid_stream_error_then_recovery(fake_server: FakeLLMServer) -> None:
    model = AnthropicAgentModel(_settings(fake_server.base_url))
    fake_server.fail_next_stream_with_error = True

    with pytest.raises(ModelError) as caught:
        await model.complete(_request())
    assert caught.value.retryable is True

    response = await model.complete(_request())
    assert response.tool_call is not None


async def test_loopback_server_rejects_a_wrong_key(fake_server: FakeLLMServer) -> None:
    model = AnthropicAgentModel(Settings(ANTHROPIC_API_KEY="wrong", ANTHROPIC_BASE_URL=fake_server.base_url))

    with pytest.raises(ModelError) as caught:
        await model.complete(_request())

    assert caught.value.retryable is False
    assert "authentication_error" in str(caught.value)


async def test_loopback_server_simulates_prompt_caching(fake_server: FakeLLMServer) -> None:
    model = AnthropicAgentModel(_settings(fake_server.base_url))
    big_system = "Rules for the trainer. " * 2000
    request = _request(
        system=[{"type": "text", "text": big_system, "cache_control": {"type": "ephemeral"}}],
    )

    first = await model.complete(request)
    second = await model.complete(request)

    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation_input_tokens > 4096
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0
