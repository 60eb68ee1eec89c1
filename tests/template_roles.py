"""The execution roles of template.yaml's functions, read the way IAM will read them: each function's
role, its managed policies with the template's conditions evaluated for a set of parameter values, and
its inline grants as (action, resource) pairs. Used by tests/unit/project/test_template.py (the template) and
tests/integration/dev/test_invoke.py (what the functions call when they run).

A resource is written as `Fn::Sub` text: `!GetAtt SessionsTable.Arn` is `${SessionsTable.Arn}`,
`!Ref DatabaseSecretArn` is `${DatabaseSecretArn}`, a `!Sub` its own text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NO_VALUE = object()
"""`!Ref AWS::NoValue`: the property or list item is left out."""

Grant = tuple[str, str]
"""(IAM action, resource as Fn::Sub text)."""


def parameter_values(template: Mapping[str, Any], overrides: Mapping[str, str]) -> dict[str, Any]:
    """Each parameter's override, else its default; a CommaDelimitedList as CloudFormation splits it."""
    values: dict[str, Any] = {}
    for name, spec in template.get("Parameters", {}).items():
        raw = str(overrides.get(name, spec.get("Default", "")))
        values[name] = raw.split(",") if spec.get("Type") == "CommaDelimitedList" else raw
    return values


def evaluate(template: Mapping[str, Any], node: Any, parameters: Mapping[str, Any]) -> Any:
    """`node` with the condition functions and `!If` resolved and parameters substituted; other
    intrinsics (`!Sub`, `!GetAtt`, resource `!Ref`s) are kept as written."""
    if isinstance(node, list):
        items = [evaluate(template, item, parameters) for item in node]
        return [item for item in items if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, value),) = node.items()
        if key == "Ref":
            if value == "AWS::NoValue":
                return NO_VALUE
            return parameters.get(value, node)
        if key == "Condition":
            return evaluate(template, template["Conditions"][value], parameters)
        if key == "Fn::If":
            condition, when_true, when_false = value
            holds = evaluate(template, {"Condition": condition}, parameters)
            return evaluate(template, when_true if holds else when_false, parameters)
        if key == "Fn::Equals":
            left, right = (evaluate(template, v, parameters) for v in value)
            return left == right
        if key == "Fn::Not":
            return not evaluate(template, value[0], parameters)
        if key == "Fn::And":
            return all(evaluate(template, v, parameters) for v in value)
        if key == "Fn::Or":
            return any(evaluate(template, v, parameters) for v in value)
        if key == "Fn::Join":
            delimiter, items = value
            return str(delimiter).join(str(item) for item in evaluate(template, items, parameters))
        if key in ("Fn::Sub", "Fn::GetAtt"):
            return node
    resolved = {key: evaluate(template, value, parameters) for key, value in node.items()}
    return {key: value for key, value in resolved.items() if value is not NO_VALUE}


def as_sub_text(node: Any) -> str:
    """A resource or ARN as the `Fn::Sub` text that says the same."""
    if isinstance(node, str):
        return node
    if isinstance(node, dict) and len(node) == 1:
        ((key, value),) = node.items()
        if key == "Ref":
            return "${" + str(value) + "}"
        if key == "Fn::GetAtt":
            return "${" + (value if isinstance(value, str) else ".".join(value)) + "}"
        if key == "Fn::Sub" and isinstance(value, str):
            return value
    raise AssertionError(f"a resource this reader does not know how to name: {node!r}")


def function_role(output: Mapping[str, Any], function: str) -> tuple[str, dict[str, Any]]:
    """The logical id and properties of the role `function` runs under (template or SAM-made)."""
    role = output["Resources"][function]["Properties"]["Role"]
    assert set(role) == {"Fn::GetAtt"}, f"{function}'s Role is not a role of this template: {role!r}"
    name = role["Fn::GetAtt"][0] if isinstance(role["Fn::GetAtt"], list) else role["Fn::GetAtt"].split(".")[0]
    resource = output["Resources"][name]
    assert resource["Type"] == "AWS::IAM::Role"
    return name, resource["Properties"]


def managed_policies(
    template: Mapping[str, Any], role: Mapping[str, Any], parameters: Mapping[str, Any]
) -> set[str]:
    """The role's AWS managed policies by name (`service-role/AWSLambdaBasicExecutionRole`...)."""
    arns = evaluate(template, role.get("ManagedPolicyArns", []), parameters)
    names = set()
    for arn in arns:
        text = as_sub_text(arn)
        prefix, _, name = text.partition(":iam::aws:policy/")
        assert name and prefix in ("arn:aws", "arn:${AWS::Partition}"), f"not an AWS managed policy: {text}"
        names.add(name)
    return names


def as_list(value: Any) -> list[Any]:
    """A policy element that may be one value or a list of them, as a list."""
    return value if isinstance(value, list) else [value]


def resolve_conditions(template: Mapping[str, Any], node: Any, parameters: Mapping[str, Any]) -> Any:
    """`node` with each `!If` resolved (its condition evaluated for `parameters`) and `!Ref AWS::NoValue`
    left out; every other intrinsic kept as written, so a resource still reads as the template names it
    (`${DatabaseSecretArn}`, not the parameter's value)."""
    if isinstance(node, list):
        items = [resolve_conditions(template, item, parameters) for item in node]
        return [item for item in items if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, value),) = node.items()
        if key == "Ref" and value == "AWS::NoValue":
            return NO_VALUE
        if key == "Fn::If":
            condition, when_true, when_false = value
            holds = evaluate(template, {"Condition": condition}, parameters)
            return resolve_conditions(template, when_true if holds else when_false, parameters)
    resolved = {key: resolve_conditions(template, value, parameters) for key, value in node.items()}
    return {key: value for key, value in resolved.items() if value is not NO_VALUE}


def statements(role: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The statements of the role's inline policies (a conditional policy must be resolved first:
    `resolve_conditions`)."""
    found = []
    for policy in role.get("Policies", []):
        assert "PolicyDocument" in policy, f"an unresolved conditional policy: {policy!r}"
        found.extend(policy["PolicyDocument"]["Statement"])
    return found


NOT_RESOURCE = "NotResource "
"""How a grant on everything but a resource reads: `NotResource arn:${AWS::Partition}:sns:*:*:*`."""


def grants(role: Mapping[str, Any]) -> set[Grant]:
    """Every (action, resource) the role's inline policies allow; a `NotResource` statement's resource
    reads NOT_RESOURCE + the resource it excludes. Only Allow statements are read: a Deny, NotAction or
    Condition fails here rather than being misread."""
    found: set[Grant] = set()
    for statement in statements(role):
        assert set(statement) <= {"Effect", "Action", "Resource", "NotResource", "Sid"}, statement
        assert statement["Effect"] == "Allow", statement
        assert ("Resource" in statement) != ("NotResource" in statement), statement
        if "Resource" in statement:
            resources = [as_sub_text(resource) for resource in as_list(statement["Resource"])]
        else:
            resources = [
                NOT_RESOURCE + as_sub_text(resource) for resource in as_list(statement["NotResource"])
            ]
        found |= {
            (str(action), resource) for action in as_list(statement["Action"]) for resource in resources
        }
    return found
