"""The execution environment of one `trainer invoke`: a fresh Python process, as Lambda starts one.

`trainer_dev.local.invoke` starts this file as a script (`python -P -B -u lambda_runtime.py`, and `-S`
for a built layer: no virtualenv, only the standard library and what PYTHONPATH names), with exactly
the function's environment; PYTHONPATH is the function's code directory, then each layer's
directory (as /var/task and /opt/python). It reads the invocation from standard input (the handler,
the event, the context's values, where to write the result and the response body), imports the
handler (the init phase: an error here is reported as Lambda reports an init error), calls it once in
the main thread, writes the result as JSON and exits. Its standard output and error are the
function's log stream.

A function run by the Lambda Web Adapter (Handler `run.sh`) has no Python handler: the adapter is
emulated. The ASGI app is the one run.sh gives uvicorn, started with its lifespan; with
AWS_LWA_READINESS_CHECK_PROTOCOL=tcp it is ready when the lifespan has run (uvicorn opens its port
then), otherwise the readiness path (AWS_LWA_READINESS_CHECK_PATH) must answer below 500; the API
Gateway event becomes one HTTP request with the adapter's `x-amzn-request-context` and
`x-amzn-lambda-context` headers; the response body is written to the body pipe chunk by chunk as the
app streams it.

Standard library only: with a built layer nothing else is importable until the handler's imports
put the layer's packages to use.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import os
import re
import shlex
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

LOCAL_ACCOUNT = "123456789012"
READINESS_ATTEMPTS = 20
READINESS_INTERVAL_SECONDS = 0.25


class RuntimeProblem(RuntimeError):
    """The function cannot be run as asked (no handler, no uvicorn target, an app never ready)."""


@dataclass
class LambdaContext:
    """The Lambda context object (the attributes the Python runtime's context has)."""

    function_name: str
    memory_limit_in_mb: int
    timeout_seconds: int
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    invoked_function_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    identity: Any = None
    client_context: Any = None
    tenant_id: str | None = None
    xray_trace_id: str = field(default_factory=lambda: new_trace_id())
    deadline_ms: int = 0

    def __post_init__(self) -> None:
        if not self.invoked_function_arn:
            self.invoked_function_arn = (
                f"arn:aws:lambda:us-east-1:{LOCAL_ACCOUNT}:function:{self.function_name}"
            )
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"
        if not self.log_stream_name:
            day = datetime.now(UTC).strftime("%Y/%m/%d")
            self.log_stream_name = f"{day}/[$LATEST]{uuid.uuid4().hex}"
        self.deadline_ms = self.deadline_ms or int(time.time() * 1000) + self.timeout_seconds * 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self.deadline_ms - int(time.time() * 1000))

    def values(self) -> dict[str, Any]:
        """What the invocation hands the runtime process (the deadline starts when the handler runs)."""
        values = asdict(self)
        values.pop("deadline_ms")
        return values

    def adapter_json(self) -> dict[str, Any]:
        """What the Lambda Web Adapter sends as `x-amzn-lambda-context` (lambda_runtime::Context)."""
        return {
            "request_id": self.aws_request_id,
            "deadline": self.deadline_ms,
            "invoked_function_arn": self.invoked_function_arn,
            "xray_trace_id": self.xray_trace_id,
            "client_context": None,
            "identity": None,
            "env_config": {
                "function_name": self.function_name,
                "memory": self.memory_limit_in_mb,
                "version": self.function_version,
                "log_stream": self.log_stream_name,
                "log_group": self.log_group_name,
            },
        }


def new_trace_id() -> str:
    return f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]};Parent={uuid.uuid4().hex[:16]};Sampled=0"


def error_payload(exc: BaseException, request_id: str, error_type: str | None = None) -> dict[str, Any]:
    """Lambda's error payload."""
    return {
        "errorMessage": str(exc),
        "errorType": error_type or type(exc).__name__,
        "requestId": request_id,
        "stackTrace": traceback.format_exception(exc),
    }


# ---------------------------------------------------------------- a Python handler


def invoke_python(handler_name: str, event: dict[str, Any], context_values: dict[str, Any]) -> dict[str, Any]:
    """Import the handler's module (init), call it once: {"response"} or {"error"}."""
    module_name, _, attribute = handler_name.rpartition(".")
    request_id = str(context_values["aws_request_id"])
    if not module_name:
        return {
            "error": error_payload(
                RuntimeProblem(f"handler {handler_name!r} is not module.function"), request_id
            )
        }
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        module = importlib.import_module(module_name)
        handler = getattr(module, attribute)
    except Exception as exc:  # an init error, as Lambda reports it
        return {"error": error_payload(exc, request_id)}
    context = LambdaContext(**context_values)
    try:
        try:
            response = handler(event, context)
        except Exception as exc:
            return {"error": error_payload(exc, request_id)}
        try:
            json.dumps(response)
        except (TypeError, ValueError) as exc:
            return {"error": error_payload(exc, request_id, "Runtime.MarshalError")}
        return {"response": response}
    finally:
        shut_down_apps(vars(module), loop)


def shut_down_apps(namespace: Mapping[str, Any], loop: asyncio.AbstractEventLoop) -> None:
    """Closes what an ASGI app served by Mangum opened (the trainer container), on Mangum's loop, and
    what a function's module-level dependencies hold open (their `close_instance()`), so the process
    leaves no connection for the database to notice late."""
    for value in list(namespace.values()):
        close_instance = getattr(value, "close_instance", None)
        if callable(close_instance) and not isinstance(value, type):
            close_instance()
            continue
        app = getattr(value, "app", None) if type(value).__name__ == "Mangum" else None
        provider = getattr(getattr(app, "state", None), "container_provider", None)
        shutdown = getattr(provider, "shutdown", None)
        if callable(shutdown):
            loop.run_until_complete(shutdown())


# ---------------------------------------------------------------- the Lambda Web Adapter


def uvicorn_target(run_script: Path) -> tuple[str, bool]:
    """The `module:attribute` run.sh hands uvicorn, and whether it is a factory (`--factory`)."""
    text = run_script.read_text(encoding="utf-8")
    joined = re.sub(r"\\\n", " ", text)
    for line in joined.splitlines():
        if line.lstrip().startswith("#") or "uvicorn" not in line:
            continue
        words = shlex.split(line, comments=True)
        if "uvicorn" not in words:
            continue
        rest = words[words.index("uvicorn") + 1 :]
        targets = [w for w in rest if ":" in w and not w.startswith("-")]
        if targets:
            return targets[0], "--factory" in rest
    raise RuntimeProblem(f"{run_script} does not start uvicorn with a module:attribute")


def load_asgi_app(run_script: Path) -> Any:
    if not run_script.exists():
        raise RuntimeProblem(f"{run_script} does not exist")
    target, factory = uvicorn_target(run_script)
    module_name, _, attribute = target.partition(":")
    app = getattr(importlib.import_module(module_name), attribute)
    return app() if factory else app


@dataclass
class _Lifespan:
    app: Any
    state: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.supported = True

    async def _run(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": self.state}
        try:
            await self.app(scope, self._inbox.get, self._outbox.put)
        except Exception:
            self.supported = False  # uvicorn's lifespan="auto": an app without lifespan support is fine
            await self._outbox.put({"type": "lifespan.unsupported"})

    async def _exchange(self, message: str) -> None:
        await self._inbox.put({"type": f"lifespan.{message}"})
        reply = await self._outbox.get()
        if reply["type"] == f"lifespan.{message}.failed":
            raise RuntimeProblem(f"ASGI lifespan {message} failed: {reply.get('message', '')}")

    async def startup(self) -> None:
        self._task = asyncio.ensure_future(self._run())
        await self._exchange("startup")

    async def shutdown(self) -> None:
        if self.supported and self._task is not None and not self._task.done():
            await self._exchange("shutdown")
        if self._task is not None:
            await self._task


def http_request(event: dict[str, Any]) -> tuple[str, str, bytes, list[tuple[str, str]], dict[str, Any]]:
    """(method, path, body, headers, {query, context}) of an API Gateway REST (v1) or HTTP (v2) event."""
    context = event.get("requestContext") or {}
    if event.get("version") == "2.0":
        method = context.get("http", {}).get("method", "GET")
        path = event.get("rawPath") or "/"
        query = str(event.get("rawQueryString") or "")
        headers = [(k, str(v)) for k, v in (event.get("headers") or {}).items()]
        headers += [("cookie", "; ".join(event["cookies"]))] if event.get("cookies") else []
    else:
        method = event.get("httpMethod") or "GET"
        path = event.get("path") or "/"
        multi_query = event.get("multiValueQueryStringParameters") or {
            k: [v] for k, v in (event.get("queryStringParameters") or {}).items()
        }
        query = urlencode([(k, v) for k, values in multi_query.items() for v in values])
        multi = event.get("multiValueHeaders") or {k: [v] for k, v in (event.get("headers") or {}).items()}
        headers = [(k, str(v)) for k, values in multi.items() for v in values]
    body = event.get("body") or ""
    raw = base64.b64decode(body) if event.get("isBase64Encoded") else str(body).encode()
    return method, path, raw, headers, {"query": query, "context": context}


async def asgi_http(
    app: Any,
    *,
    method: str,
    path: str,
    query: str = "",
    headers: list[tuple[str, str]] | None = None,
    body: bytes = b"",
    state: dict[str, Any] | None = None,
    on_chunk: Callable[[bytes], None] | None = None,
    client: tuple[str, int] = ("127.0.0.1", 0),
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request to an ASGI app, as uvicorn would serve it; the body is handed to `on_chunk`
    chunk by chunk as the app sends it, and returned whole."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method.upper(),
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers or []],
        "client": client,
        "server": ("127.0.0.1", 8080),
        "state": dict(state or {}),
    }
    done = asyncio.Event()
    sent_body = False
    status = 500
    response_headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            for name, value in message.get("headers", []):
                response_headers[name.decode("latin-1")] = value.decode("latin-1")
        elif message["type"] == "http.response.body":
            chunk = bytes(message.get("body", b""))
            if chunk:
                chunks.append(chunk)
                if on_chunk is not None:
                    on_chunk(chunk)
            if not message.get("more_body", False):
                done.set()

    try:
        await app(scope, receive, send)
    finally:
        done.set()
    return status, response_headers, b"".join(chunks)


def readiness_path(environment: Mapping[str, str]) -> str | None:
    """The path the adapter polls before the first request, or None when its readiness check is a TCP
    connect, which an emulated app passes once its lifespan has run."""
    if environment.get("AWS_LWA_READINESS_CHECK_PROTOCOL", "http").lower() == "tcp":
        return None
    return environment.get("AWS_LWA_READINESS_CHECK_PATH", "/")


async def _wait_until_ready(app: Any, path: str, state: dict[str, Any]) -> None:
    """The adapter's readiness check: GET `path` until it answers below 500."""
    status = 0
    for attempt in range(READINESS_ATTEMPTS):
        if attempt:
            await asyncio.sleep(READINESS_INTERVAL_SECONDS)
        status, _, _ = await asgi_http(app, method="GET", path=path, state=state)
        if status < 500:
            return
    raise RuntimeProblem(f"readiness check GET {path} answered {status}: the app is not ready")


async def invoke_web_adapter(
    run_script: Path,
    event: dict[str, Any],
    context_values: dict[str, Any],
    write_body: Callable[[bytes], None],
) -> dict[str, Any]:
    """The adapter's run of one invocation: {"status", "headers"} (the body went to `write_body`) or
    {"error"}."""
    request_id = str(context_values["aws_request_id"])
    try:
        app = load_asgi_app(run_script)
    except Exception as exc:
        return {"error": error_payload(exc, request_id)}
    lifespan = _Lifespan(app)
    await lifespan.startup()
    outcome: dict[str, Any]
    try:
        readiness = readiness_path(os.environ)
        if readiness is not None:
            await _wait_until_ready(app, readiness, lifespan.state)
        context = LambdaContext(**context_values)
        method, path, body, headers, extra = http_request(event)
        headers = [
            (k, v) for k, v in headers if k.lower() not in ("x-amzn-request-context", "x-amzn-lambda-context")
        ]
        headers.append(("x-amzn-request-context", json.dumps(extra["context"], separators=(",", ":"))))
        headers.append(("x-amzn-lambda-context", json.dumps(context.adapter_json(), separators=(",", ":"))))
        source_ip = ((extra["context"].get("identity") or {}).get("sourceIp")) or "127.0.0.1"
        status, response_headers, _ = await asgi_http(
            app,
            method=method,
            path=path,
            query=extra["query"],
            headers=headers,
            body=body,
            state=lifespan.state,
            on_chunk=write_body,
            client=(str(source_ip), 0),
        )
        outcome = {"status": status, "headers": response_headers}
    except Exception as exc:
        outcome = {"error": error_payload(exc, request_id)}
    finally:
        await lifespan.shutdown()
    return outcome


# ---------------------------------------------------------------- the process


def main() -> int:
    """One invocation, read from standard input: {"handler", "code_dir", "web_adapter", "event",
    "context", "result_path", "body_fd"}."""
    invocation = json.loads(sys.stdin.read())
    body_fd = int(invocation["body_fd"])

    def write_body(chunk: bytes) -> None:
        view = memoryview(chunk)
        while view:
            view = view[os.write(body_fd, view) :]

    if invocation["web_adapter"]:
        run_script = Path(invocation["code_dir"]) / invocation["handler"]
        outcome = asyncio.run(
            invoke_web_adapter(run_script, invocation["event"], invocation["context"], write_body)
        )
    else:
        outcome = invoke_python(invocation["handler"], invocation["event"], invocation["context"])
    os.close(body_fd)
    sys.stdout.flush()
    sys.stderr.flush()
    Path(invocation["result_path"]).write_text(json.dumps(outcome), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
