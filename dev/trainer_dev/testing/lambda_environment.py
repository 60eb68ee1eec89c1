"""The environment template.yaml gives a deployed function, for tests (and benchmarks) that start a
handler as Lambda would: the Globals' variables and the function's own, with the runtime's variables
(AWS_LAMBDA_FUNCTION_NAME among them, so the settings count as deployed).

`!Ref` of a parameter is its default or, for the parameters without one, a stand-in of the form the
parameter allows; `!Ref` of a resource is its logical id; `!If` takes its false branch (every condition
is off with the parameters' defaults), and a variable left `AWS::NoValue` is unset.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from samtranslator.yaml_helper import yaml_parse

ROOT = Path(__file__).resolve().parents[3]
"""The repository (this file is dev/trainer_dev/testing/lambda_environment.py)."""
TEMPLATE = ROOT / "template.yaml"

STAND_INS = {
    "JwksUrl": "https://issuer.example/.well-known/jwks.json",
    "JwtIssuer": "https://issuer.example/",
    "DatabaseSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:trainer-db",
}
"""Values for the parameters that have no default."""

RUNTIME = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
    "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@cache
def _template() -> dict[str, Any]:
    parsed: dict[str, Any] = yaml_parse(TEMPLATE.read_text())
    return parsed


def function_directories() -> dict[str, str]:
    """Each function's logical id by its code directory under functions/ (`api`: `ApiFunction`)."""
    return {
        str(resource["Properties"]["CodeUri"]).removeprefix("functions/"): name
        for name, resource in _template()["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


def _resolve(value: Any) -> str | None:
    if isinstance(value, dict) and "Ref" in value:
        name = value["Ref"]
        if name == "AWS::NoValue":
            return None
        parameter = _template()["Parameters"].get(name)
        if parameter is None:
            return str(name)
        return str(parameter["Default"]) if "Default" in parameter else STAND_INS[name]
    if isinstance(value, dict) and "Fn::If" in value:
        return _resolve(value["Fn::If"][2])
    if isinstance(value, dict):
        raise ValueError(f"unexpected intrinsic in an environment variable: {value}")
    return str(value)


def deployed_environment(logical_id: str) -> dict[str, str]:
    """The variables `logical_id` starts with in AWS (stand-ins where the template has none)."""
    template = _template()
    variables = {
        **template["Globals"]["Function"]["Environment"]["Variables"],
        **template["Resources"][logical_id]["Properties"].get("Environment", {}).get("Variables", {}),
    }
    environment = {**RUNTIME, "AWS_LAMBDA_FUNCTION_NAME": logical_id}
    for name, value in variables.items():
        resolved = _resolve(value)
        if resolved is not None:
            environment[name] = resolved
    return environment
