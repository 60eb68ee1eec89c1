"""template.yaml: lints clean, transforms with aws-sam-translator offline (as `sam validate` does),
and carries the design's invariants (docs/architecture.md). Also the sample events in events/."""

from __future__ import annotations

import ast
import copy
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import boto3
import pytest
from cfnlint.api import ManualArgs, lint, lint_file
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse

from tests.template_roles import (
    NOT_RESOURCE,
    Grant,
    as_list,
    as_sub_text,
    evaluate,
    function_role,
    grants,
    managed_policies,
    parameter_values,
    resolve_conditions,
    statements,
)
from tests.unit.project import dynamodb_calls
from tests.unit.project.dynamodb_calls import Adapter

ROOT = Path(__file__).resolve().parents[3]
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
    ("/devices", "post"),
    ("/devices", "get"),
    ("/devices/{device_id}", "delete"),
    ("/notification-settings", "get"),
    ("/notification-settings", "put"),
    ("/notifications", "get"),
    ("/today", "get"),
    ("/console", "get"),
    ("/console/{proxy+}", "get"),
    ("/me", "delete"),
    ("/me/profile", "get"),
    ("/me/profile", "patch"),
    ("/me/goals", "get"),
    ("/me/goals", "put"),
    ("/me/preferences", "get"),
    ("/me/preferences", "post"),
    ("/me/preferences/{preference_id}", "delete"),
    ("/me/locations", "get"),
    ("/me/locations", "post"),
    ("/me/locations/{location_id}", "patch"),
    ("/me/locations/{location_id}", "delete"),
    ("/me/locations/{location_id}/current", "post"),
}
STREAMED_ROUTES = {("/agent/stream", "post"), ("/me/export", "get")}
"""On the stream function, answered with response streaming."""


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


def test_the_data_export_is_streamed_by_the_stream_function() -> None:
    event = function("StreamFunction")["Events"]["Export"]["Properties"]
    assert (event["Path"], event["Method"].lower()) == ("/me/export", "get")
    assert event["ResponseTransferMode"] == "RESPONSE_STREAM"
    integration = _integration("/me/export", "get")
    assert integration["responseTransferMode"] == "STREAM"
    assert integration["uri"]["Fn::Sub"].endswith("${StreamFunctionAliaslive}/response-streaming-invocations")


def test_the_cost_function_may_check_the_account_tombstone_in_its_transaction() -> None:
    assert function("CostFunction")["Role"] == {"Fn::GetAtt": ["CostFunctionRole", "Arn"]}
    sessions = next(s for s in _statements("CostFunctionRole") if "SessionsTable" in str(s["Resource"]))
    assert {"dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"} <= set(sessions["Action"])


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
    "NotifierFunction",
    "PushAppsFunction",
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
    assert ("secretsmanager:GetSecretValue", "${DatabaseSecretArn}") in _grants("CheckpointFunction")


def test_the_checkpoint_lease_fits_in_the_checkpoint_function() -> None:
    from trainer.chat.checkpoint import CHECKPOINT_LEASE_SECONDS

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
    assert routes == BUFFERED_ROUTES | STREAMED_ROUTES
    for path, method in BUFFERED_ROUTES:
        integration = _integration(path, method)
        assert integration["uri"]["Fn::Sub"].endswith("${ApiFunctionAliaslive}/invocations")
        assert "responseTransferMode" not in integration
    assert _integration("/agent/chat", "post")["timeoutInMillis"] == 29000
    assert function("ApiFunction")["Handler"] == "app.handler"


RULE_TARGETS = {
    ("CheckpointFunction", "TurnCompleted"),
    ("CostFunction", "TurnCompleted"),
    ("PlanFunction", "PlanRequested"),
    ("MicrocycleFunction", "WeekDue"),
    ("NotifierFunction", "WorkoutReady"),
    ("NotifierFunction", "PushEndpointsRetired"),
}
ASYNC_FUNCTIONS = {*(name for name, _ in RULE_TARGETS), "SchedulerFunction"}


def test_job_rules_retry_then_dead_letter_and_functions_have_on_failure() -> None:
    rules = resources_of("AWS::Events::Rule")
    assert len(rules) == len(RULE_TARGETS)
    routed = set()
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
        routed.add((target["Arn"]["Fn::GetAtt"][0], detail_type))
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


def _grants(
    name: str, output: dict[str, Any] | None = None, overrides: dict[str, str] | None = None
) -> set[Grant]:
    """(action, resource) pairs the inline policies of `name`'s role allow, in the transformed template,
    its conditional policies and resources as `overrides` (else the defaults) decide them."""
    role = function_role(output or transformed(), name)[1]
    return grants(resolve_conditions(sam(), role, parameter_values(sam(), overrides or {})))


def _policy_actions(name: str) -> set[str]:
    return {action for action, _ in _grants(name)}


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
    assert (path, method.lower()) in BUFFERED_ROUTES | STREAMED_ROUTES


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
    from trainer.chat.turn_completed import parse_turn_completed

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
        "NotifierFunction": "notifier-",
        "PushAppsFunction": "push-apps-",
    }
    names = [p.name for p in EVENTS.glob("*.json")]
    functions = {n for n, r in sam()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(handlers)
    for prefix in handlers.values():
        assert any(n.startswith(prefix) for n in names), prefix


# ---------------------------------------------------------------- execution roles (least privilege)

FUNCTIONS = (
    "ApiFunction",
    "StreamFunction",
    "MigrateFunction",
    "CheckpointFunction",
    "CostFunction",
    "PlanFunction",
    "MicrocycleFunction",
    "SchedulerFunction",
    "NotifierFunction",
    "PushAppsFunction",
)
VPC_ON = {
    "VpcSubnetIds": "subnet-0123456789abcdef0,subnet-0123456789abcdef1",
    "VpcSecurityGroupIds": "sg-0123456789abcdef0",
}
PUSH_SECRETS = {
    "ApnsSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:trainer/apns-AbCdEf",
    "ApnsSandboxSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:trainer/apns-dev-AbCdEf",
    "FcmSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:trainer/fcm-AbCdEf",
}
PUSH_AND_SMS = {**PUSH_SECRETS, "SmsEnabled": "true"}
"""Every conditional grant on: the platform applications (and PushAppsFunction) exist, SMS is sent."""
VPC_ACCESS = "service-role/AWSLambdaVPCAccessExecutionRole"
BASIC_EXECUTION = "service-role/AWSLambdaBasicExecutionRole"
XRAY_WRITE = "AWSXrayWriteOnlyAccess"


def test_every_function_runs_under_a_role_of_its_own_written_in_the_template() -> None:
    """SAM generates no function role: with `Policies` it would attach the VPC access policy to every
    function with a VpcConfig property, deployed in a VPC or not (aws/serverless-application-model#3502)."""
    functions = {n for n, r in sam()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(FUNCTIONS)
    roles = set()
    for name in FUNCTIONS:
        assert "Policies" not in function(name), "SAM ignores Policies next to a Role"
        role_name, role = function_role(sam(), name)
        roles.add(role_name)
        (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
        assert trust == {
            "Effect": "Allow",
            "Principal": {"Service": "lambda.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
        assert function_role(transformed(), name) == (role_name, role), "SAM left the role as written"
    assert len(roles) == len(FUNCTIONS), "one role per function"


def _in_vpc(name: str, parameters: dict[str, Any]) -> bool:
    vpc = evaluate(sam(), {"VpcConfig": function(name).get("VpcConfig")}, parameters)
    return "VpcConfig" in vpc and vpc["VpcConfig"] is not None


@pytest.mark.parametrize("overrides", [{}, VPC_ON, PROXY_ON], ids=["no-vpc", "vpc", "vpc-and-proxy"])
def test_the_vpc_access_policy_is_on_exactly_the_functions_that_run_in_the_vpc(
    overrides: dict[str, str],
) -> None:
    output = _transform(overrides)
    parameters = parameter_values(sam(), overrides)
    tracing = sam()["Globals"]["Function"]["Tracing"] == "Active"
    with_vpc_access = set()
    for name in FUNCTIONS:
        policies = managed_policies(sam(), function_role(output, name)[1], parameters)
        assert BASIC_EXECUTION in policies
        assert (XRAY_WRITE in policies) is tracing
        assert policies <= {BASIC_EXECUTION, XRAY_WRITE, VPC_ACCESS}
        if VPC_ACCESS in policies:
            with_vpc_access.add(name)
    assert with_vpc_access == {name for name in FUNCTIONS if _in_vpc(name, parameters)}
    if not overrides:
        assert with_vpc_access == set()
    else:
        assert with_vpc_access == set(FUNCTIONS) - {"CostFunction", "PushAppsFunction"}, (
            "CostFunction only uses DynamoDB, PushAppsFunction only SNS and Secrets Manager"
        )


PHONE_NUMBERS = "arn:${AWS::Partition}:sns:*:*:*"
"""What an SMS grant excludes: a phone number has no ARN, so `sns:Publish` to phone numbers is granted on
everything but SNS's own resources (no topic, no endpoint)."""


@pytest.mark.parametrize("overrides", [{}, {**VPC_ON, **PUSH_AND_SMS}], ids=["defaults", "everything-on"])
def test_no_role_grants_scans_batch_reads_or_wildcards(overrides: dict[str, str]) -> None:
    parameters = parameter_values(sam(), overrides)
    for name, resource in transformed()["Resources"].items():
        if resource["Type"] != "AWS::IAM::Role":
            continue
        for statement in statements(resolve_conditions(sam(), resource["Properties"], parameters)):
            actions = as_list(statement["Action"])
            assert not {"dynamodb:Scan", "dynamodb:BatchGetItem"} & set(actions), name
            assert not [a for a in actions if "*" in a], f"{name} grants a wildcard action"
            if "NotResource" in statement:
                assert (actions, statement["NotResource"]) == (["sns:Publish"], {"Fn::Sub": PHONE_NUMBERS}), (
                    f"{name}: everything but a resource is granted only for SMS to phone numbers"
                )
                continue
            assert "*" not in as_list(statement["Resource"]), f"{name} grants on every resource"


# What each function's code calls on DynamoDB, per resource (the template's grants must be exactly these).
SESSION_STORE_ACTIONS = {
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
}
ROUTE_ACTIONS = SESSION_STORE_ACTIONS | {"dynamodb:ConditionCheckItem"}
"""The writes that create a user's items (a session, a frame, an idempotency key, a request rate, a
reservation) check the account's tombstone in the same transaction, and an append checks the session
is live."""
DYNAMODB_GRANTS: dict[str, dict[str, set[str]]] = {
    # The routes and the agent loop: the whole SessionStore port (commit's TransactWriteItems is Put,
    # Update and Delete entries), the daily metrics and the tombstone checks; a user's sessions come
    # from the GSI1 index.
    "ApiFunction": {
        "${SessionsTable.Arn}": ROUTE_ACTIONS,
        "${SessionsTable.Arn}/index/GSI1": {"dynamodb:Query"},
    },
    "StreamFunction": {
        "${SessionsTable.Arn}": ROUTE_ACTIONS,
        "${SessionsTable.Arn}/index/GSI1": {"dynamodb:Query"},
    },
    # One session under its lease: load, read events and state, append the checkpoint (checking the
    # session is live), update META.
    "CheckpointFunction": {"${SessionsTable.Arn}": ROUTE_ACTIONS},
    # A turn's events, the session's usage (ADD), the daily metrics (in a transaction that checks the
    # account's tombstone); Powertools idempotency records.
    "CostFunction": {
        "${SessionsTable.Arn}": {
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:UpdateItem",
            "dynamodb:ConditionCheckItem",
        },
        "${IdempotencyTable.Arn}": {
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
        },
    },
    "MigrateFunction": {},
    "PlanFunction": {},
    "MicrocycleFunction": {},
    "SchedulerFunction": {},
    "NotifierFunction": {},
    "PushAppsFunction": {},
}


def _dynamodb_grants(name: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for action, resource in _grants(name):
        if action.startswith("dynamodb:"):
            found.setdefault(resource, set()).add(action)
    return found


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_function_is_granted_the_dynamodb_actions_its_code_calls(name: str) -> None:
    assert _dynamodb_grants(name) == DYNAMODB_GRANTS[name]


TRAINER = ROOT / "layers" / "core" / "trainer"
LOCAL_ONLY = TRAINER / "local"
"""The local stack and `trainer invoke` (moto's journal, table set-up): never run in Lambda."""


def _powertools_persistence() -> Path:
    from aws_lambda_powertools.utilities.idempotency.persistence import dynamodb

    return Path(dynamodb.__file__)


SESSION_TABLE = Adapter(TRAINER / "store" / "sessions", "DynamoSessionTable", "SessionsTable")
DAILY_METRICS = Adapter(TRAINER / "store" / "metrics.py", "DailyMetricsStore", "SessionsTable")
USAGE_LEDGER = Adapter(TRAINER / "store" / "usage.py", "DynamoUsageLedger", "SessionsTable")
ACCOUNT_TABLE = Adapter(TRAINER / "store" / "account_records.py", "DynamoAccountTable", "SessionsTable")


@cache
def _idempotency_records() -> Adapter:
    return Adapter(_powertools_persistence(), "DynamoDBPersistenceLayer", "IdempotencyTable")


def _iam_grants_of(table: str, calls: dynamodb_calls.Calls) -> set[Grant]:
    on_table = {(action, f"${{{table}.Arn}}") for action in calls.iam_actions()}
    return on_table | {("dynamodb:Query", f"${{{table}.Arn}}/index/{index}") for index in calls.indexes}


def test_every_granted_dynamodb_action_is_one_the_code_calls() -> None:
    """The DynamoDB client calls written in the package (trainer/local aside) and, for the idempotency
    table, in Powertools' persistence layer, mapped to IAM actions: a grant nothing calls fails.

    This proves each granted action is called *somewhere* on that table; which function needs it is
    the next test's business."""
    package = dynamodb_calls.Calls()
    for path in sorted(TRAINER.rglob("*.py")):
        if LOCAL_ONLY in path.parents:
            continue
        module = ast.parse(path.read_text(encoding="utf-8"))
        package |= dynamodb_calls.calls_in(module, dynamodb_calls.transaction_entry_kinds(module))
    powertools = ast.parse(_powertools_persistence().read_text(encoding="utf-8"))
    idempotency = dynamodb_calls.calls_in(powertools, dynamodb_calls.transaction_entry_kinds(powertools))
    assert "Scan" not in package.operations and "BatchGetItem" not in package.operations
    called = _iam_grants_of("SessionsTable", package) | _iam_grants_of("IdempotencyTable", idempotency)
    granted = {grant for name in FUNCTIONS for grant in _grants(name) if grant[0].startswith("dynamodb:")}
    assert granted, "no DynamoDB grant found: the reader is broken"
    assert granted <= called, f"granted but never called: {sorted(granted - called)}"


EVERY_METHOD = "every method"


@dataclass(frozen=True)
class CodePath:
    """What a function's code path uses, declared: the DynamoDB adapters with the methods it enters
    them by (EVERY_METHOD, or the methods its modules call on a port), whether it publishes to the
    bus, the modules whose SNS client calls it makes (module, the client as the code writes it), and
    the module that reads the Secrets Manager secret of each custom resource the function serves.
    Secrets, model keys and the failure queue follow from the template itself (the environment the
    settings read, the EventInvokeConfig)."""

    adapters: tuple[tuple[Adapter, str | frozenset[str]], ...] = ()
    publishes: bool = False
    sns: tuple[tuple[Path, str], ...] = ()
    custom_resource_secrets: tuple[Path, str] | None = None


def _modules(*names: str) -> list[Path]:
    return [TRAINER.joinpath(*name.removeprefix("trainer.").split(".")).with_suffix(".py") for name in names]


def _code_paths() -> dict[str, CodePath]:
    checkpoint = _modules("trainer.jobs.checkpoint", "trainer.chat.checkpoint")
    costs = _modules("trainer.jobs.costs")
    # The API container hands the whole SessionStore port to the routes and the chat turn, the usage
    # ledger to the limits, and the account records (tombstones, deletion, export) to the account
    # service; both HTTP functions run that app.
    # An account deletion deletes the SNS endpoints of the user's devices (trainer.store.push_endpoints).
    http = CodePath(
        ((SESSION_TABLE, EVERY_METHOD), (USAGE_LEDGER, EVERY_METHOD), (ACCOUNT_TABLE, EVERY_METHOD)),
        publishes=True,
        sns=((PUSH_ENDPOINTS, "self._client"),),
    )
    return {
        "ApiFunction": http,
        "StreamFunction": http,
        "CheckpointFunction": CodePath(
            (
                (SESSION_TABLE, frozenset(dynamodb_calls.port_calls(checkpoint, "store"))),
                (ACCOUNT_TABLE, frozenset(dynamodb_calls.port_calls(checkpoint, "tombstones"))),
            )
        ),
        "CostFunction": CodePath(
            (
                (SESSION_TABLE, frozenset(dynamodb_calls.port_calls(costs, "store"))),
                (DAILY_METRICS, frozenset(dynamodb_calls.port_calls(costs, "metrics"))),
                (_idempotency_records(), EVERY_METHOD),
            )
        ),
        "MigrateFunction": CodePath(),
        "PlanFunction": CodePath(),
        "MicrocycleFunction": CodePath(),
        # WeekDue, PlanRequested again for stale plans, WorkoutReady (and again for deferred deliveries);
        # the plan and week builders only write Postgres.
        "SchedulerFunction": CodePath(publishes=True),
        # Postgres and SNS (the push and SMS gateway); it publishes nothing.
        "NotifierFunction": CodePath(sns=((SNS_GATEWAY, "self._client"),)),
        # The platform applications from the secrets the custom resources name.
        "PushAppsFunction": CodePath(
            sns=((PUSH_APPS, "clients.sns"),), custom_resource_secrets=(PUSH_APPS, "clients.secrets")
        ),
    }


def _environment(name: str) -> dict[str, Any]:
    shared = sam()["Globals"]["Function"]["Environment"]["Variables"]
    return {**shared, **function(name).get("Environment", {}).get("Variables", {})}


def _settings_variable(field_name: str) -> str:
    """The environment variable a Settings field is read from."""
    from trainer.settings import Settings

    alias = Settings.model_fields[field_name].alias
    assert alias, field_name
    return alias


SSM_PARAMETER_ARN = "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter"
"""An SSM parameter's ARN, the parameter's name (it starts with "/") to follow."""

SNS_GATEWAY = TRAINER / "jobs" / "sns.py"
PUSH_ENDPOINTS = TRAINER / "store" / "push_endpoints.py"
PUSH_APPS = TRAINER / "jobs" / "push_apps.py"
SNS_ARN = "arn:${AWS::Partition}:sns:${AWS::Region}:${AWS::AccountId}:"
STACK_APPLICATIONS = SNS_ARN + "app/*/${AWS::StackName}-*"
"""This stack's platform applications: every Custom::SnsPlatformApplication is named `<stack>-...`
(test_platform_applications_exist_only_with_their_credentials)."""
SNS_TARGETS = {
    "Name": STACK_APPLICATIONS,
    "PlatformApplicationArn": STACK_APPLICATIONS,
    "EndpointArn": SNS_ARN + "endpoint/*/${AWS::StackName}-*/*",
    "TargetArn": SNS_ARN + "endpoint/*/${AWS::StackName}-*/*",
    "PhoneNumber": NOT_RESOURCE + PHONE_NUMBERS,
}
"""The resource an SNS call acts on, by the argument that names it: an application (created by its name),
an endpoint of one (endpoint/<platform>/<application>/<id>), a phone number. The code publishes to
endpoints only (TargetArn), never to a topic."""


def _client_calls(module: Path, client: str) -> list[tuple[str, dict[str, str]]]:
    """Each `<client>.<operation>(...)` call written in `module`: the operation and its keyword
    arguments (name -> source text)."""
    calls = []
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and ast.unparse(node.func.value) == client
        ):
            arguments = {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg is not None}
            calls.append((node.func.attr, arguments))
    return calls


def _iam_action(service: str, operation: str) -> str:
    """boto3's `create_platform_endpoint` is IAM's `sns:CreatePlatformEndpoint`."""
    return f"{service}:" + "".join(part.capitalize() for part in operation.split("_"))


def _sns_needed(path: CodePath, sends_sms: bool) -> set[Grant]:
    needed: set[Grant] = set()
    for module, client in path.sns:
        calls = _client_calls(module, client)
        assert calls, f"no call on {client} in {module.name}: the scan is broken"
        for operation, arguments in calls:
            (target,) = set(arguments) & set(SNS_TARGETS)
            if target == "PhoneNumber" and not sends_sms:
                continue  # the SMS gateway is wired only when the deployment sends SMS
            needed.add((_iam_action("sns", operation), SNS_TARGETS[target]))
    return needed


def _custom_resource_secrets(name: str, path: CodePath, parameters: dict[str, Any]) -> set[Grant]:
    """The SecretArn of each custom resource `name` serves (whose condition holds), which its code reads."""
    if path.custom_resource_secrets is None:
        return set()
    module, client = path.custom_resource_secrets
    reads = [a for op, a in _client_calls(module, client) if op == "get_secret_value"]
    assert reads and all("SecretArn" in a["SecretId"] for a in reads), "the code reads the SecretArn property"
    needed: set[Grant] = set()
    for resource in sam()["Resources"].values():
        properties = resource.get("Properties") or {}
        if properties.get("ServiceToken") != {"Fn::GetAtt": [name, "Arn"]}:
            continue
        if "Condition" in resource and not evaluate(sam(), {"Condition": resource["Condition"]}, parameters):
            continue
        needed.add(("secretsmanager:GetSecretValue", as_sub_text(properties["SecretArn"])))
    return needed


def _needed(name: str, overrides: dict[str, str] | None = None) -> set[Grant]:
    environment = _environment(name)
    parameters = parameter_values(sam(), overrides or {})
    path = _code_paths()[name]
    needed: set[Grant] = set()
    table_of_variable = {
        SESSION_TABLE.table: _settings_variable("table_name"),
        "IdempotencyTable": _settings_variable("idempotency_table_name"),
    }
    for adapter, entry in path.adapters:
        # The table the adapter's settings name in this function's environment.
        table = as_sub_text(environment[table_of_variable[adapter.table]]).strip("${}")
        assert table == adapter.table
        methods = dynamodb_calls.method_names(adapter) if entry == EVERY_METHOD else entry
        assert methods, f"{name}: no call into {adapter.class_name} found"
        needed |= _iam_grants_of(table, dynamodb_calls.reachable(adapter, methods))
    if path.publishes:
        bus = as_sub_text(environment[_settings_variable("event_bus_name")])
        needed.add(("events:PutEvents", bus.removesuffix("}") + ".Arn}"))
    secret = environment.get(_settings_variable("database_secret_arn"))
    if secret is not None:
        needed.add(("secretsmanager:GetSecretValue", as_sub_text(secret)))
    for field_name in ("anthropic_key_parameter", "openai_key_parameter"):
        parameter = environment.get(_settings_variable(field_name))
        if parameter is not None:
            needed.add(("ssm:GetParameter", SSM_PARAMETER_ARN + as_sub_text(parameter)))
    on_failure = function(name).get("EventInvokeConfig", {}).get("DestinationConfig", {}).get("OnFailure")
    if on_failure is not None:
        assert on_failure["Type"] == "SQS"
        needed.add(("sqs:SendMessage", as_sub_text(on_failure["Destination"])))
    sms = environment.get(_settings_variable("sms_enabled"))
    needed |= _sns_needed(path, sends_sms=evaluate(sam(), sms, parameters) == "true")
    needed |= _custom_resource_secrets(name, path, parameters)
    return needed


@pytest.mark.parametrize("overrides", [{}, PUSH_AND_SMS], ids=["defaults", "push-and-sms"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_role_allows_exactly_what_its_code_path_needs(name: str, overrides: dict[str, str]) -> None:
    """Needs come from a per-function declaration (`_code_paths`: the DynamoDB adapters and entry
    methods, read from the job modules where a port is passed in; whether it publishes) followed into
    the adapters' source (every `self.<method>` they can reach, every branch included) and from the
    template (the secret, key parameters and tables the function's environment names for the settings to
    read, the EventInvokeConfig failure destination).

    What this proves: no call the declared entry points can reach is denied, and nothing beyond them
    is granted. What it cannot prove: that the declaration is complete (a port passed into a module not
    listed, a new adapter, a publish from the plan builders) or that a branch runs at all; calls made
    through a variable rather than `self.<method>`; and what AWS itself requires (KMS for the key
    parameters uses the default aws/ssm key). tests/integration/dev/test_invoke.py checks the calls real
    invocations make against these roles.

    SNS: the client calls written in the gateway modules a code path declares, each on the resource its
    ARN argument names (SNS_TARGETS), SMS only where the function's environment turns it on; Secrets
    Manager for a custom resource's function: the secrets the resources it serves name."""
    assert _grants(name, overrides=overrides) == _needed(name, overrides)


def test_the_code_paths_name_methods_the_adapters_have() -> None:
    """The entry methods read from the job modules exist on the adapters the functions construct (a
    call on `store` the scan misread would otherwise go unnoticed)."""
    for path in _code_paths().values():
        for adapter, entry in path.adapters:
            if entry != EVERY_METHOD:
                assert entry and set(entry) <= dynamodb_calls.method_names(adapter), (adapter, entry)
    checkpoint = dict(_code_paths()["CheckpointFunction"].adapters)[SESSION_TABLE]
    assert {"acquire_lease", "append_event", "release_lease"} <= set(checkpoint)


# --- delivery to the phone (docs/delivery.md) -----------------------------------------------------

PLATFORM_APPLICATIONS = {
    "ApnsPlatformApplication": ("APNS", "ApnsSecretArn", "HasApnsCredentials"),
    "ApnsSandboxPlatformApplication": ("APNS_SANDBOX", "ApnsSandboxSecretArn", "HasApnsSandboxCredentials"),
    "FcmPlatformApplication": ("GCM", "FcmSecretArn", "HasFcmCredentials"),
}


@pytest.mark.parametrize(
    "overrides", [PUSH_SECRETS, {"FcmSecretArn": PUSH_SECRETS["FcmSecretArn"]}, {"SmsEnabled": "true"}]
)
def test_cfn_lint_is_clean_with_push_credentials_and_sms(overrides: dict[str, str]) -> None:
    matches = lint(_with_defaults(overrides), config=ManualArgs(include_checks=["I"], regions=["us-east-1"]))
    assert [str(m) for m in matches] == []


def test_platform_applications_exist_only_with_their_credentials() -> None:
    """A stack without push secrets deploys: no application, no custom-resource function, and the
    Notifier's application ARNs are empty (its pushes are recorded as push_not_configured)."""
    resources = sam()["Resources"]
    for name, (platform, secret, condition) in PLATFORM_APPLICATIONS.items():
        resource = resources[name]
        assert resource["Type"] == "Custom::SnsPlatformApplication"
        assert resource["Condition"] == condition
        assert sam()["Conditions"][condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": secret}, ""]}]}
        assert sam()["Parameters"][secret]["Default"] == ""
        properties = resource["Properties"]
        assert properties["Platform"] == platform
        assert properties["SecretArn"] == {"Ref": secret}
        assert properties["ServiceToken"] == {"Fn::GetAtt": ["PushAppsFunction", "Arn"]}
        assert properties["Name"]["Fn::Sub"].startswith("${AWS::StackName}-"), "the roles' resource patterns"
    for name in ("PushAppsFunction", "PushAppsFunctionRole", "PushAppsFunctionLogGroup"):
        assert resources[name]["Condition"] == "HasPushCredentials"
    variables = function("NotifierFunction")["Environment"]["Variables"]
    for key, (name, (_, _, condition)) in zip(
        (
            "TRAINER_SNS_APNS_APPLICATION_ARN",
            "TRAINER_SNS_APNS_SANDBOX_APPLICATION_ARN",
            "TRAINER_SNS_FCM_APPLICATION_ARN",
        ),
        PLATFORM_APPLICATIONS.items(),
        strict=True,
    ):
        assert variables[key] == {"Fn::If": [condition, {"Fn::GetAtt": [name, "Arn"]}, ""]}
    from trainer.settings import Settings

    assert (
        Settings(**{key: "" for key in variables if key.startswith("TRAINER_SNS_")}).push_applications == {}
    )


@pytest.mark.parametrize("overrides", [{}, PUSH_SECRETS], ids=["no-push-secrets", "push-secrets"])
def test_the_template_transforms_with_and_without_push_credentials(overrides: dict[str, str]) -> None:
    resources = _transform(overrides)["Resources"]
    assert resources["NotifierFunction"]["Type"] == "AWS::Lambda::Function"
    assert resources["PushAppsFunction"]["Type"] == "AWS::Lambda::Function"


def _statements(role: str) -> list[dict[str, Any]]:
    properties = sam()["Resources"][role]["Properties"]
    found = []
    for policy in properties["Policies"]:
        if "Fn::If" in policy:
            policy = policy["Fn::If"][1]
        found.extend(policy["PolicyDocument"]["Statement"])
    return found


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def test_the_notifier_role_grants_the_calls_its_code_makes_on_this_stacks_endpoints_only() -> None:
    role = sam()["Resources"]["NotifierFunctionRole"]["Properties"]
    assert function("NotifierFunction")["Role"] == {"Fn::GetAtt": ["NotifierFunctionRole", "Arn"]}
    managed = json.dumps(role["ManagedPolicyArns"])
    assert "AWSLambdaBasicExecutionRole" in managed and "AWSXrayWriteOnlyAccess" in managed
    vpc = [p for p in role["ManagedPolicyArns"] if isinstance(p, dict) and "Fn::If" in p]
    assert [p["Fn::If"][0] for p in vpc] == ["UseVpc"], "the VPC access policy only in the VPC"
    statements = _statements("NotifierFunctionRole")
    granted = set().union(*(_actions(s) for s in statements))
    assert granted == {
        "secretsmanager:GetSecretValue",
        "sns:CreatePlatformEndpoint",
        "sns:GetEndpointAttributes",
        "sns:SetEndpointAttributes",
        "sns:Publish",
        "sns:DeleteEndpoint",
        "sqs:SendMessage",
    }
    for statement in statements:
        assert statement.get("Resource") != "*", "nothing on every resource"
        if _actions(statement) & {"sns:GetEndpointAttributes", "sns:DeleteEndpoint"}:
            assert ":endpoint/*/${AWS::StackName}-*/*" in statement["Resource"]["Fn::Sub"]
        if _actions(statement) == {"sns:CreatePlatformEndpoint"}:
            assert ":app/*/${AWS::StackName}-*" in statement["Resource"]["Fn::Sub"]
    (sms,) = [p for p in role["Policies"] if "Fn::If" in p]
    assert sms["Fn::If"][0] == "SendSms" and sms["Fn::If"][2] == {"Ref": "AWS::NoValue"}
    (text,) = sms["Fn::If"][1]["PolicyDocument"]["Statement"]
    assert text["Action"] == "sns:Publish" and text["NotResource"] == {
        "Fn::Sub": "arn:${AWS::Partition}:sns:*:*:*"
    }
    assert sam()["Parameters"]["SmsEnabled"]["Default"] == "false"


def test_the_notifier_reaches_the_database_and_its_settings() -> None:
    properties = function("NotifierFunction")
    variables = properties["Environment"]["Variables"]
    assert variables["TRAINER_DATABASE_SECRET_ARN"] == {"Ref": "DatabaseSecretArn"}
    assert "TRAINER_DATABASE_HOST" in variables
    assert properties["VpcConfig"] == function("ApiFunction")["VpcConfig"]
    assert variables["TRAINER_MORNING_HOUR"] == {"Ref": "MorningHour"}
    assert variables["TRAINER_SMS_ENABLED"] == {"Ref": "SmsEnabled"}
    api = function("ApiFunction")["Environment"]["Variables"]
    assert api["TRAINER_MORNING_HOUR"] == {"Ref": "MorningHour"}, "the earliest morning_hour a user may set"
    from trainer.services.delivery import STALE_AFTER_TIMEOUTS
    from trainer.store.repositories.notifications import STALE_CLAIM

    assert STALE_CLAIM.total_seconds() >= STALE_AFTER_TIMEOUTS * properties["Timeout"]


def test_the_custom_resource_function_reads_only_the_push_secrets() -> None:
    statements = _statements("PushAppsFunctionRole")
    granted = set().union(*(_actions(s) for s in statements))
    assert granted == {
        "secretsmanager:GetSecretValue",
        "sns:CreatePlatformApplication",
        "sns:SetPlatformApplicationAttributes",
        "sns:DeletePlatformApplication",
    }
    (secrets,) = [s for s in statements if _actions(s) == {"secretsmanager:GetSecretValue"}]
    assert {r["Fn::If"][1]["Ref"] for r in secrets["Resource"]} == set(PUSH_SECRETS)
