"""template.yaml: lints clean, transforms with aws-sam-translator offline (as `sam validate` does),
and carries the design's invariants (ARCHITECTURE §2, §3, §6). Also the sample events in events/."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import boto3
import pytest
from cfnlint.api import ManualArgs, lint_file
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"
STREAM_LAYER = "arn:aws:lambda:${AWS::Region}:753240598075:layer:LambdaAdapterLayerX86:27"

BUFFERED_ROUTES = {
    ("/health", "get"),
    ("/agent/chat", "post"),
    ("/agent/sessions", "get"),
    ("/agent/sessions", "post"),
    ("/agent/sessions/{id}", "get"),
    ("/agent/sessions/{id}", "delete"),
    ("/agent/sessions/{id}/events", "get"),
    ("/user-settings", "get"),
    ("/user-settings", "put"),
    ("/exercises/history", "get"),
    ("/exercises/distribution", "get"),
}


@cache
def sam() -> dict[str, Any]:
    return yaml_parse(TEMPLATE.read_text())


@cache
def transformed() -> dict[str, Any]:
    """The CloudFormation the SAM transform produces. Local code paths become S3 placeholders and
    the region comes from an offline boto3 session: nothing touches the network."""
    template = copy.deepcopy(sam())
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://placeholder-bucket/{key.lower()}.zip"
    translator = Translator({}, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    return translator.translate(template, parameter_values={}, get_managed_policy_map=dict)


def resources_of(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in transformed()["Resources"].items() if r["Type"] == kind}


def function(name: str) -> dict[str, Any]:
    return sam()["Resources"][name]["Properties"]


def test_cfn_lint_reports_nothing_including_informational() -> None:
    matches = lint_file(TEMPLATE, ManualArgs(include_checks=["I"], regions=["us-east-1"]))
    assert [str(m) for m in matches] == []


def test_sam_transform_produces_the_design_resources() -> None:
    kinds = {r["Type"] for r in transformed()["Resources"].values()}
    assert {
        "AWS::ApiGateway::RestApi",
        "AWS::Lambda::Function",
        "AWS::Lambda::LayerVersion",
        "AWS::Events::Rule",
        "AWS::Lambda::EventInvokeConfig",
        "AWS::DynamoDB::Table",
        "AWS::Events::EventBus",
    } <= kinds
    for logical_id in ("SessionsTable", "IdempotencyTable", "TrainerBus", "ApiFunction", "StreamFunction"):
        assert logical_id in transformed()["Resources"]
    assert {"CheckpointFunction", "CostFunction", "CoreLayer"} <= set(sam()["Resources"])


def test_api_is_regional() -> None:
    api = sam()["Resources"]["Api"]["Properties"]
    assert api["EndpointConfiguration"]["Type"] == "REGIONAL"


def _integration(path: str, method: str) -> dict[str, Any]:
    (rest_api,) = resources_of("AWS::ApiGateway::RestApi").values()
    paths = rest_api["Properties"]["Body"]["paths"]
    integration: dict[str, Any] = paths[path][method]["x-amazon-apigateway-integration"]
    return integration


def test_stream_route_uses_response_streaming_end_to_end() -> None:
    event = function("StreamFunction")["Events"]["Stream"]["Properties"]
    assert event["Path"] == "/agent/stream"
    assert event["Method"].lower() == "post"
    assert event["ResponseTransferMode"] == "RESPONSE_STREAM"
    integration = _integration("/agent/stream", "post")
    assert integration["responseTransferMode"] == "STREAM"
    assert integration["uri"]["Fn::Sub"].endswith("${StreamFunction.Arn}/response-streaming-invocations")


def test_stream_function_runs_under_the_lambda_web_adapter() -> None:
    stream = function("StreamFunction")
    variables = stream["Environment"]["Variables"]
    assert stream["Handler"] == "run.sh"
    assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert variables["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert {"Fn::Sub": STREAM_LAYER} in stream["Layers"]
    assert parameter_default(stream["Timeout"]) >= 300
    assert sam()["Globals"]["Function"]["Architectures"] == ["x86_64"]
    run_sh = ROOT / "functions" / "stream" / "run.sh"
    assert run_sh.stat().st_mode & 0o111, "run.sh must be executable"
    assert "uvicorn trainer.api.app:create_app --factory" in run_sh.read_text()
    assert "AWS_LWA_PORT" in run_sh.read_text()


def parameter_default(value: Any) -> Any:
    """A literal, or the default of the parameter a `!Ref` names."""
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return sam()["Parameters"][value["Ref"]]["Default"]
    return value


@pytest.mark.parametrize("name", ["ApiFunction", "StreamFunction"])
def test_no_turn_lease_outlives_its_function(name: str) -> None:
    """The function's timeout and the TRAINER_FUNCTION_TIMEOUT_SECONDS that caps its turn leases come
    from one parameter, and the default lease is shorter than every default timeout."""
    properties = function(name)
    timeout = properties["Timeout"]
    assert isinstance(timeout, dict) and "Ref" in timeout, "the timeout must be a parameter"
    assert properties["Environment"]["Variables"]["TRAINER_FUNCTION_TIMEOUT_SECONDS"] == timeout
    from trainer.settings import Settings

    settings = Settings(TRAINER_FUNCTION_TIMEOUT_SECONDS=parameter_default(timeout))
    assert settings.turn_lease_seconds <= parameter_default(timeout)
    assert settings.turn_lease_seconds <= 60, "a dead turn must free its session within a minute"


def test_the_checkpoint_lease_fits_in_the_checkpoint_function() -> None:
    from trainer.agent.checkpoint import CHECKPOINT_LEASE_SECONDS

    timeout = parameter_default(function("CheckpointFunction").get("Timeout"))
    assert min(timeout, 60) >= CHECKPOINT_LEASE_SECONDS


@pytest.mark.parametrize(("name", "bad"), [("JwksUrl", ""), ("JwtIssuer", ""), ("JwtAudience", "")])
def test_auth_parameters_cannot_deploy_empty(name: str, bad: str) -> None:
    """An empty JwksUrl would leave verification to the public development secret (the function
    refuses that too, at run time); issuer and audience are always checked."""
    parameter = sam()["Parameters"][name]
    assert not re.fullmatch(parameter["AllowedPattern"], bad)
    if name == "JwksUrl":
        assert re.fullmatch(parameter["AllowedPattern"], "https://cognito-idp.example/.well-known/jwks.json")


def test_buffered_routes_are_all_on_the_api_function_and_never_streamed() -> None:
    (rest_api,) = resources_of("AWS::ApiGateway::RestApi").values()
    paths = rest_api["Properties"]["Body"]["paths"]
    routes = {(path, method) for path, methods in paths.items() for method in methods}
    assert routes == BUFFERED_ROUTES | {("/agent/stream", "post")}
    for path, method in BUFFERED_ROUTES:
        integration = _integration(path, method)
        assert integration["uri"]["Fn::Sub"].endswith("${ApiFunction.Arn}/invocations")
        assert "responseTransferMode" not in integration
    assert _integration("/agent/chat", "post")["timeoutInMillis"] == 29000
    assert function("ApiFunction")["Handler"] == "app.handler"


def test_job_rules_retry_then_dead_letter_and_functions_have_on_failure() -> None:
    rules = resources_of("AWS::Events::Rule")
    assert len(rules) == 2
    for rule in rules.values():
        properties = rule["Properties"]
        assert properties["EventPattern"] == {"source": ["trainer.agent"], "detail-type": ["TurnCompleted"]}
        assert properties["EventBusName"] == {"Ref": "TrainerBus"}
        (target,) = properties["Targets"]
        assert target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][1] == "Arn"
        assert target["RetryPolicy"]["MaximumRetryAttempts"] > 0
    targets = {rule["Properties"]["Targets"][0]["Arn"]["Fn::GetAtt"][0] for rule in rules.values()}
    assert targets == {"CheckpointFunction", "CostFunction"}
    configs = resources_of("AWS::Lambda::EventInvokeConfig")
    assert {c["Properties"]["FunctionName"]["Ref"] for c in configs.values()} == targets
    for config in configs.values():
        assert config["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]


def test_sessions_table_matches_the_store_contract() -> None:
    table = sam()["Resources"]["SessionsTable"]["Properties"]
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert table["SSESpecification"]["SSEEnabled"] is True
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert table["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    (gsi,) = table["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "GSI1"
    assert gsi["Projection"] == {"ProjectionType": "ALL"}
    assert [k["AttributeName"] for k in gsi["KeySchema"]] == ["GSI1PK", "GSI1SK"]


def test_idempotency_table_has_the_powertools_layout() -> None:
    table = sam()["Resources"]["IdempotencyTable"]["Properties"]
    assert table["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expiration", "Enabled": True}
    assert table["SSESpecification"]["SSEEnabled"] is True


def test_core_layer_is_built_from_layers_core() -> None:
    layer = sam()["Resources"]["CoreLayer"]
    assert layer["Properties"]["ContentUri"] == "layers/core"
    assert layer["Metadata"]["BuildMethod"] == "python3.12"
    assert sam()["Globals"]["Function"]["Runtime"] == "python3.12"
    assert (ROOT / "layers" / "core" / "requirements.txt").is_file()


def _requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_the_layer_ships_every_runtime_dependency_of_the_package() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_requirement_name(spec) for spec in project["dependencies"]}
    lines = (ROOT / "layers" / "core" / "requirements.txt").read_text().splitlines()
    shipped = {_requirement_name(line) for line in lines if line.strip() and not line.startswith("#")}
    assert wanted <= shipped, f"missing from the layer: {sorted(wanted - shipped)}"


def test_every_function_gets_the_environment_the_settings_read() -> None:
    global_variables = sam()["Globals"]["Function"]["Environment"]["Variables"]
    assert global_variables["TRAINER_TABLE_NAME"] == {"Ref": "SessionsTable"}
    assert global_variables["TRAINER_IDEMPOTENCY_TABLE_NAME"] == {"Ref": "IdempotencyTable"}
    assert global_variables["TRAINER_EVENT_BUS_NAME"] == {"Ref": "TrainerBus"}
    assert {"POWERTOOLS_SERVICE_NAME", "TRAINER_MODEL", "TRAINER_INITIALIZER_MODEL"} <= set(global_variables)
    for name in ("ApiFunction", "StreamFunction"):
        variables = function(name)["Environment"]["Variables"]
        for key in (
            "TRAINER_JWKS_URL",
            "TRAINER_JWT_ISSUER",
            "TRAINER_JWT_AUDIENCE",
            "TRAINER_DATABASE_SECRET_ARN",
            "TRAINER_ANTHROPIC_KEY_PARAMETER",
            "TRAINER_OPENAI_KEY_PARAMETER",
        ):
            assert set(variables[key]) == {"Ref"}, f"{name}.{key} must come from a parameter"


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in (*_strings(key), *_strings(value))]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


SECRET_SHAPES = [
    re.compile(r"sk-ant-[A-Za-z0-9_-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"postgres(ql)?://[^\s:]+:[^\s@]+@"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
]
SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DATABASE_URL", "TRAINER_JWT_SECRET")


def test_no_literal_secrets_in_template_config_or_events() -> None:
    texts = {
        "template.yaml": _strings(sam()),
        "samconfig.toml": [(ROOT / "samconfig.toml").read_text()],
        **{f"events/{p.name}": [p.read_text()] for p in EVENTS.glob("*.json")},
    }
    for source, strings in texts.items():
        for text in strings:
            for shape in SECRET_SHAPES:
                assert not shape.search(text), (
                    f"{source} holds something shaped like a secret: {shape.pattern}"
                )
    for resource in sam()["Resources"].values():
        variables = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        assert not set(variables) & set(SECRET_VARIABLES), "secrets are resolved at runtime, not set in env"
    assert not set(sam()["Globals"]["Function"]["Environment"]["Variables"]) & set(SECRET_VARIABLES)


def test_samconfig_has_dev_and_prod_stacks() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    for stage in ("dev", "prod"):
        deploy = config[stage]["deploy"]["parameters"]
        assert deploy["stack_name"] == f"trainer-{stage}"
        assert f"Stage={stage}" in deploy["parameter_overrides"]


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return data


API_EVENTS = {
    "api-health.json": ("GET", "/health", False),
    "api-list-sessions-no-token.json": ("GET", "/agent/sessions", False),
    "api-list-sessions-with-token.json": ("GET", "/agent/sessions", True),
    "api-chat.json": ("POST", "/agent/chat", True),
    "stream-chat.json": ("POST", "/agent/stream", True),
}


@pytest.mark.parametrize(("name", "expected"), API_EVENTS.items())
def test_api_events_are_rest_v1_proxy_events(name: str, expected: tuple[str, str, bool]) -> None:
    method, path, with_token = expected
    event = _load(name)
    assert event["httpMethod"] == method
    assert event["path"] == path
    assert event["resource"] == path
    assert event["isBase64Encoded"] is False
    context = event["requestContext"]
    assert context["httpMethod"] == method
    assert context["resourcePath"] == path
    assert context["stage"] and context["requestId"] and context["identity"]["sourceIp"]
    assert set(event["multiValueHeaders"]) == set(event["headers"])
    assert ("Authorization" in event["headers"]) is with_token
    if with_token:
        assert event["headers"]["Authorization"].startswith("Bearer ")
    if method == "POST":
        assert json.loads(event["body"])["message"]
    assert (path, method.lower()) in BUFFERED_ROUTES | {("/agent/stream", "post")}


@pytest.mark.parametrize("name", ["checkpoint-turn-completed.json", "costs-turn-completed.json"])
def test_turn_completed_events_match_the_bus_contract(name: str) -> None:
    from trainer.agent.turn_completed import parse_turn_completed

    event = _load(name)
    assert event["source"] == "trainer.agent"
    assert event["detail-type"] == "TurnCompleted"
    turn = parse_turn_completed(event)
    assert turn.first_seq <= turn.last_seq
    assert set(event["detail"]["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    }


def test_every_function_has_a_sample_event() -> None:
    handlers = {
        "ApiFunction": "api-",
        "StreamFunction": "stream-",
        "CheckpointFunction": "checkpoint-",
        "CostFunction": "costs-",
        "MigrateFunction": "migrate",
    }
    names = [p.name for p in EVENTS.glob("*.json")]
    functions = {n for n, r in sam()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(handlers)
    for prefix in handlers.values():
        assert any(n.startswith(prefix) for n in names), prefix
