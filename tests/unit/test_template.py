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
from cfnlint.api import ManualArgs, lint, lint_file
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
    ("/plans", "post"),
    ("/plans", "get"),
    ("/plans/{plan_id}", "get"),
    ("/workouts", "get"),
    ("/workouts/{workout_id}", "get"),
    ("/workouts/import", "post"),
    ("/console", "get"),
    ("/console/{proxy+}", "get"),
}


@cache
def sam() -> dict[str, Any]:
    return yaml_parse(TEMPLATE.read_text())


@cache
def transformed() -> dict[str, Any]:
    """The CloudFormation the SAM transform produces. Local code paths become S3 placeholders and
    the region comes from an offline boto3 session: nothing touches the network."""
    return _transform({})


def _transform(parameter_values: dict[str, str]) -> dict[str, Any]:
    template = copy.deepcopy(sam())
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://placeholder-bucket/{key.lower()}.zip"
    translator = Translator({}, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    return translator.translate(
        template, parameter_values=dict(parameter_values), get_managed_policy_map=dict
    )


def resources_of(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in transformed()["Resources"].items() if r["Type"] == kind}


def function(name: str) -> dict[str, Any]:
    return sam()["Resources"][name]["Properties"]


def test_cfn_lint_reports_nothing_including_informational() -> None:
    matches = lint_file(TEMPLATE, ManualArgs(include_checks=["I"], regions=["us-east-1"]))
    assert [str(m) for m in matches] == []


PROXY_ON = {
    "DatabaseProxyTarget": "trainer-db",
    "VpcSubnetIds": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "VpcSecurityGroupIds": "sg-0123456789abcdef0",
}


def _with_defaults(values: dict[str, str]) -> str:
    """template.yaml with these parameter defaults: what cfn-lint checks when they are deployed."""
    text = TEMPLATE.read_text()
    for name, value in values.items():
        pattern = re.compile(rf"(\n  {name}:\n(?:    .*\n)*?    Default: ).*\n")
        text, count = pattern.subn(lambda m, v=value: f"{m.group(1)}'{v}'\n", text, count=1)
        assert count == 1, name
    return text


@pytest.mark.parametrize("target_type", ["cluster", "instance"])
def test_cfn_lint_is_clean_with_the_database_proxy_on(target_type: str) -> None:
    text = _with_defaults({**PROXY_ON, "DatabaseProxyTargetType": target_type, "ApiReservedConcurrency": "5"})
    matches = lint(text, config=ManualArgs(include_checks=["I"], regions=["us-east-1"]))
    assert [str(m) for m in matches] == []


def test_the_database_proxy_is_off_by_default_and_needs_the_vpc() -> None:
    parameters = sam()["Parameters"]
    assert parameters["DatabaseProxyTarget"]["Default"] == ""
    assert re.fullmatch(parameters["DatabaseProxyTarget"]["AllowedPattern"], "")
    assert re.fullmatch(parameters["DatabaseProxyTarget"]["AllowedPattern"], "trainer-aurora-1")
    conditions = sam()["Conditions"]
    assert {"Condition": "UseVpc"} in conditions["UseDatabaseProxy"]["Fn::And"]
    rule = sam()["Rules"]["DatabaseProxyNeedsVpc"]
    assert rule["RuleCondition"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "DatabaseProxyTarget"}, ""]}]}
    assert len(rule["Assertions"]) == 2
    for name in ("DatabaseProxy", "DatabaseProxyRole", "DatabaseProxyTargetGroup"):
        assert sam()["Resources"][name]["Condition"] == "UseDatabaseProxy"


@pytest.mark.parametrize("overrides", [{}, PROXY_ON], ids=["proxy-off", "proxy-on"])
def test_the_template_transforms_with_the_proxy_on_and_off(overrides: dict[str, str]) -> None:
    output = _transform(overrides)
    resources = output["Resources"]
    proxy = resources["DatabaseProxy"]
    assert proxy["Type"] == "AWS::RDS::DBProxy"
    assert proxy["Properties"]["EngineFamily"] == "POSTGRESQL"
    assert proxy["Properties"]["RequireTLS"] is True
    assert proxy["Properties"]["Auth"] == [
        {"AuthScheme": "SECRETS", "SecretArn": {"Ref": "DatabaseSecretArn"}, "IAMAuth": "DISABLED"}
    ]
    assert proxy["Properties"]["RoleArn"] == {"Fn::GetAtt": ["DatabaseProxyRole", "Arn"]}
    group = resources["DatabaseProxyTargetGroup"]["Properties"]
    assert group["DBProxyName"] == {"Ref": "DatabaseProxy"}
    assert group["DBClusterIdentifiers"]["Fn::If"][0] == "DatabaseProxyTargetsCluster"
    assert group["DBInstanceIdentifiers"]["Fn::If"][0] == "DatabaseProxyTargetsInstance"
    (statement,) = resources["DatabaseProxyRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert statement == {
        "Effect": "Allow",
        "Action": "secretsmanager:GetSecretValue",
        "Resource": {"Ref": "DatabaseSecretArn"},
    }
    endpoint = {"Fn::GetAtt": ["DatabaseProxy", "Endpoint"]}
    proxy_host = {"Fn::If": ["UseDatabaseProxy", endpoint, {"Ref": "AWS::NoValue"}]}
    for name in ("ApiFunction", "StreamFunction"):
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        assert variables["TRAINER_DATABASE_HOST"] == proxy_host
    migrate = resources["MigrateFunction"]["Properties"]["Environment"]["Variables"]
    assert "TRAINER_DATABASE_HOST" not in migrate, "migrations connect to the database directly"


@pytest.mark.parametrize(
    ("name", "parameter"),
    [
        ("ApiFunction", "ApiReservedConcurrency"),
        ("StreamFunction", "StreamReservedConcurrency"),
        ("CheckpointFunction", "CheckpointReservedConcurrency"),
        ("CostFunction", "CostReservedConcurrency"),
        ("PlanFunction", "ProgramReservedConcurrency"),
        ("MicrocycleFunction", "ProgramReservedConcurrency"),
    ],
)
def test_reserved_concurrency_is_a_parameter_zero_meaning_unreserved(name: str, parameter: str) -> None:
    definition = sam()["Parameters"][parameter]
    assert definition["Default"] == 0 and definition["MinValue"] == 0
    condition = function(name)["ReservedConcurrentExecutions"]["Fn::If"]
    assert condition[1:] == [{"Ref": parameter}, {"Ref": "AWS::NoValue"}]
    assert sam()["Conditions"][condition[0]] == {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, "0"]}]}
    translated = _transform({parameter: "7"})["Resources"][name]["Properties"]
    assert translated["ReservedConcurrentExecutions"]["Fn::If"] == condition


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
    assert integration["uri"]["Fn::Sub"].endswith("${StreamFunctionAliaslive}/response-streaming-invocations")


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
    assert "uvicorn app:create_app --factory" in run_sh.read_text(), "functions/stream/app.py's factory"
    assert "AWS_LWA_PORT" in run_sh.read_text()


SNAPSTART_FUNCTIONS = ("ApiFunction", "StreamFunction")


@pytest.mark.parametrize("name", SNAPSTART_FUNCTIONS)
def test_the_http_functions_start_from_a_snapshot_behind_an_alias(name: str) -> None:
    """SnapStart applies to published versions only: the alias is what API Gateway invokes, and every
    property change (the code lives in the layer) publishes a version."""
    properties = function(name)
    assert properties["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert properties["AutoPublishAlias"] == "live"
    assert properties["AutoPublishAliasAllProperties"] is True
    resources = transformed()["Resources"]
    assert resources[name]["Properties"]["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    (alias,) = (
        r
        for r in resources_of("AWS::Lambda::Alias").values()
        if r["Properties"]["FunctionName"] == {"Ref": name}
    )
    assert alias["Properties"]["Name"] == "live"
    permissions = [
        r["Properties"]
        for r in resources_of("AWS::Lambda::Permission").values()
        if r["Properties"]["Principal"] == "apigateway.amazonaws.com"
        and r["Properties"]["FunctionName"] in ({"Ref": name}, {"Ref": f"{name}Aliaslive"})
    ]
    assert permissions and all(p["FunctionName"] == {"Ref": f"{name}Aliaslive"} for p in permissions)


@pytest.mark.parametrize("name", SNAPSTART_FUNCTIONS)
def test_snapstart_functions_use_nothing_snapstart_refuses(name: str) -> None:
    """SnapStart needs a managed runtime (Python 3.12+) and excludes provisioned concurrency, EFS and
    more than 512 MB of ephemeral storage."""
    properties = {**sam()["Globals"]["Function"], **function(name)}
    assert properties["Runtime"] == "python3.12"
    assert "ProvisionedConcurrencyConfig" not in properties
    assert "FileSystemConfigs" not in properties
    assert properties.get("EphemeralStorage", {"Size": 512})["Size"] <= 512


def test_the_stream_function_is_ready_when_its_port_is_open() -> None:
    """Readiness over HTTP would GET /health during the snapshot init, which builds the container
    (secrets, database pool) into the snapshot; uvicorn opens its port once the lifespan has run."""
    variables = function("StreamFunction")["Environment"]["Variables"]
    assert variables["AWS_LWA_READINESS_CHECK_PROTOCOL"] == "tcp"
    assert "AWS_LWA_READINESS_CHECK_PATH" not in variables


BACKGROUND_FUNCTIONS = (
    "CheckpointFunction",
    "CostFunction",
    "MigrateFunction",
    "PlanFunction",
    "MicrocycleFunction",
    "SchedulerFunction",
)


@pytest.mark.parametrize("name", BACKGROUND_FUNCTIONS)
def test_background_functions_do_not_pay_for_snapshots(name: str) -> None:
    """Nobody waits on their cold starts, and a Python snapshot is billed per cached version."""
    assert "SnapStart" not in function(name)
    assert "AutoPublishAlias" not in function(name)


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


def test_the_checkpoint_function_reaches_the_database_for_the_state_it_keeps() -> None:
    """A checkpoint keeps the user's temporary preferences and location, read from Postgres."""
    properties = function("CheckpointFunction")
    variables = properties["Environment"]["Variables"]
    assert variables["TRAINER_DATABASE_SECRET_ARN"] == {"Ref": "DatabaseSecretArn"}
    assert "TRAINER_DATABASE_HOST" in variables
    assert properties["VpcConfig"] == function("ApiFunction")["VpcConfig"]
    policies = properties["Policies"]
    assert {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "DatabaseSecretArn"}}} in policies


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
        assert integration["uri"]["Fn::Sub"].endswith("${ApiFunctionAliaslive}/invocations")
        assert "responseTransferMode" not in integration
    assert _integration("/agent/chat", "post")["timeoutInMillis"] == 29000
    assert function("ApiFunction")["Handler"] == "app.handler"


RULE_TARGETS = {
    "CheckpointFunction": "TurnCompleted",
    "CostFunction": "TurnCompleted",
    "PlanFunction": "PlanRequested",
    "MicrocycleFunction": "WeekDue",
}
ASYNC_FUNCTIONS = {*RULE_TARGETS, "SchedulerFunction"}


def test_job_rules_retry_then_dead_letter_and_functions_have_on_failure() -> None:
    rules = resources_of("AWS::Events::Rule")
    assert len(rules) == len(RULE_TARGETS)
    routed = {}
    dead_letters = set()
    for rule in rules.values():
        properties = rule["Properties"]
        assert properties["EventBusName"] == {"Ref": "TrainerBus"}
        (target,) = properties["Targets"]
        assert target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][1] == "Arn"
        dead_letters.add(target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0])
        assert target["RetryPolicy"]["MaximumRetryAttempts"] > 0
        (detail_type,) = properties["EventPattern"]["detail-type"]
        assert properties["EventPattern"]["source"] == ["trainer.agent"]
        routed[target["Arn"]["Fn::GetAtt"][0]] = detail_type
    assert routed == RULE_TARGETS
    assert len(dead_letters) == len(rules), "a dead-letter queue per rule"
    configs = resources_of("AWS::Lambda::EventInvokeConfig")
    assert {c["Properties"]["FunctionName"]["Ref"] for c in configs.values()} == ASYNC_FUNCTIONS
    for config in configs.values():
        assert config["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]
        assert config["Properties"]["MaximumRetryAttempts"] >= 1


def test_the_program_runs_are_hourly_scheduler_schedules_with_retries_and_dead_letters() -> None:
    """EventBridge Scheduler fires SchedulerFunction every hour for each run (the morning is each user's
    own), passing the scheduled time, with a role that may invoke that function only."""
    schedules = resources_of("AWS::Scheduler::Schedule")
    runs = {}
    for schedule in schedules.values():
        properties = schedule["Properties"]
        assert properties["ScheduleExpression"] == "cron(0 * * * ? *)"
        assert properties["ScheduleExpressionTimezone"] == "UTC"
        assert properties["FlexibleTimeWindow"] == {"Mode": "OFF"}
        assert "Name" not in properties, "a generated name: dev and prod stacks can share an account"
        target = properties["Target"]
        assert target["Arn"] == {"Fn::GetAtt": ["SchedulerFunction", "Arn"]}
        assert target["RetryPolicy"]["MaximumRetryAttempts"] > 0
        queue = target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0]
        assert transformed()["Resources"][queue]["Type"] == "AWS::SQS::Queue"
        run = json.loads(target["Input"])
        assert run["at"] == "<aws.scheduler.scheduled-time>"
        runs[run["run"]] = target["RoleArn"]["Fn::GetAtt"][0]
    assert set(runs) == {"hourly", "daily"}
    for role_name in runs.values():
        role = transformed()["Resources"][role_name]["Properties"]
        principal = role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]
        assert principal == {"Service": ["scheduler.amazonaws.com"]}
        actions = {
            (s["Action"] if isinstance(s["Action"], str) else tuple(s["Action"]), json.dumps(s["Resource"]))
            for policy in role["Policies"]
            for s in policy["PolicyDocument"]["Statement"]
        }
        invoke = {a for a in actions if "lambda:InvokeFunction" in a[0]}
        assert invoke and all("SchedulerFunction" in resource for _, resource in invoke)
        assert {a for a, _ in actions} <= {"lambda:InvokeFunction", "sqs:SendMessage"}


def _policy_actions(name: str) -> set[str]:
    role = transformed()["Resources"][f"{name}Role"]["Properties"]
    found: set[str] = set()
    for policy in role.get("Policies", []):
        for statement in policy["PolicyDocument"]["Statement"]:
            action = statement["Action"]
            found |= {action} if isinstance(action, str) else set(action)
    return found


@pytest.mark.parametrize("name", ["PlanFunction", "MicrocycleFunction", "SchedulerFunction"])
def test_program_functions_reach_the_database_and_the_models_and_publish_only_when_they_must(
    name: str,
) -> None:
    properties = function(name)
    variables = properties["Environment"]["Variables"]
    assert variables["TRAINER_DATABASE_SECRET_ARN"] == {"Ref": "DatabaseSecretArn"}
    assert "TRAINER_DATABASE_HOST" in variables
    assert variables["TRAINER_ANTHROPIC_KEY_PARAMETER"] == {"Ref": "AnthropicKeyParameterName"}
    assert properties["VpcConfig"] == function("ApiFunction")["VpcConfig"]
    actions = _policy_actions(name)
    assert "secretsmanager:GetSecretValue" in actions and "ssm:GetParameter" in actions
    assert ("events:PutEvents" in actions) is (name == "SchedulerFunction"), "only the scheduler publishes"
    assert not {a for a in actions if a.startswith("dynamodb:")}, "the pipeline lives in Postgres"
    from trainer.settings import Settings

    if name == "SchedulerFunction":
        hour = variables["TRAINER_MORNING_HOUR"]
        assert Settings(TRAINER_MORNING_HOUR=parameter_default(hour)).morning_hour == 6


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


def test_program_events_match_what_the_handlers_parse() -> None:
    from trainer.jobs.programs import (
        PlanRequestedDetail,
        WeekDueDetail,
        parse_detail,
        parse_schedule,
    )
    from trainer.programs.pipeline import PLAN_REQUESTED, WEEK_DUE

    plan = _load("plans-plan-requested.json")
    assert (plan["source"], plan["detail-type"]) == ("trainer.agent", PLAN_REQUESTED)
    parse_detail(plan, PLAN_REQUESTED, PlanRequestedDetail)
    week = _load("microcycle-week-due.json")
    assert (week["source"], week["detail-type"]) == ("trainer.agent", WEEK_DUE)
    assert parse_detail(week, WEEK_DUE, WeekDueDetail).week_number == 2
    schedules = {
        json.loads(s["Properties"]["Target"]["Input"])["run"]
        for s in resources_of("AWS::Scheduler::Schedule").values()
    }
    assert {parse_schedule(_load(f"scheduler-{name}.json")).run for name in ("hourly", "daily")} == schedules


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
        "PlanFunction": "plans-",
        "MicrocycleFunction": "microcycle-",
        "SchedulerFunction": "scheduler-",
    }
    names = [p.name for p in EVENTS.glob("*.json")]
    functions = {n for n, r in sam()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(handlers)
    for prefix in handlers.values():
        assert any(n.startswith(prefix) for n in names), prefix
