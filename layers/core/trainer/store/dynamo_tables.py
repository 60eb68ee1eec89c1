"""DynamoDB table definitions read from template.yaml, and the boto3 clients the adapters use.

The template is the single source of truth for keys and indexes: the local stack and the tests
create their tables from the same definitions CloudFormation deploys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from trainer.settings import FunctionSettings, Settings
from trainer.store.ports import StoreUnavailable

if TYPE_CHECKING:
    import yaml

SESSIONS_TABLE_ID = "SessionsTable"
IDEMPOTENCY_TABLE_ID = "IdempotencyTable"
EVENT_BUS_ID = "TrainerBus"

_CREATE_TABLE_KEYS = ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "BillingMode")
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class TemplateError(ValueError):
    """template.yaml is missing a resource or property the store needs."""


def _cfn_loader() -> type[yaml.SafeLoader]:
    import yaml

    class CloudFormationLoader(yaml.SafeLoader):
        """SafeLoader that turns short intrinsic tags (!Ref, !Condition, !Sub, !GetAtt...) into their long
        form."""

    def construct_intrinsic(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
        name = tag_suffix if tag_suffix in ("Ref", "Condition") else f"Fn::{tag_suffix}"
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}

    CloudFormationLoader.add_multi_constructor("!", construct_intrinsic)
    return CloudFormationLoader


def parse_template(text: str) -> dict[str, Any]:
    import yaml

    document = yaml.load(text, Loader=_cfn_loader())
    if not isinstance(document, dict) or not isinstance(document.get("Resources"), dict):
        raise TemplateError("template has no Resources section")
    return document


def _resource_properties(template: dict[str, Any], logical_id: str) -> dict[str, Any]:
    resource = template["Resources"].get(logical_id)
    if not isinstance(resource, dict) or not isinstance(resource.get("Properties"), dict):
        raise TemplateError(f"template has no {logical_id} resource with Properties")
    properties: dict[str, Any] = resource["Properties"]
    return properties


def _table_names(settings: Settings) -> dict[str, str]:
    return {SESSIONS_TABLE_ID: settings.table_name, IDEMPOTENCY_TABLE_ID: settings.idempotency_table_name}


def table_definitions(template: dict[str, Any], settings: Settings) -> list[dict[str, Any]]:
    """boto3 `create_table` kwargs for the sessions and idempotency tables of a parsed template."""
    definitions = []
    for logical_id, table_name in _table_names(settings).items():
        properties = _resource_properties(template, logical_id)
        for required in ("AttributeDefinitions", "KeySchema"):
            if required not in properties:
                raise TemplateError(f"{logical_id} has no {required}")
        kwargs: dict[str, Any] = {"TableName": table_name}
        kwargs.update({key: properties[key] for key in _CREATE_TABLE_KEYS if key in properties})
        definitions.append(kwargs)
    return definitions


def time_to_live_attributes(template: dict[str, Any], settings: Settings) -> dict[str, str]:
    """Table name -> TTL attribute, for the tables whose template enables TimeToLiveSpecification."""
    attributes = {}
    for logical_id, table_name in _table_names(settings).items():
        spec = _resource_properties(template, logical_id).get("TimeToLiveSpecification") or {}
        if spec.get("Enabled") is True and spec.get("AttributeName"):
            attributes[table_name] = str(spec["AttributeName"])
    return attributes


CONNECT_TIMEOUT_S = 2
READ_TIMEOUT_S = 3
MAX_ATTEMPTS = 3
"""boto3's standard retry mode, attempts in all. A DynamoDB or EventBridge request takes milliseconds:
these bound an unreachable endpoint (refused, or a cut path that never answers) to a few seconds
instead of the SDK defaults' minutes, so a request is answered 503 while API Gateway still waits."""
STORE_CALL_DEADLINE_S = 4.5
"""The most a caller waits for one store call (its requests and retries): past it the store is
unavailable, whatever the worker thread is still doing (trainer.store.dynamo_tables.in_thread)."""


def aws_client(service: str, settings: FunctionSettings, **config: Any) -> Any:
    """A boto3 client for `service` honouring AWS_ENDPOINT_URL and AWS_REGION from Settings.

    Against a loopback endpoint (moto) dummy credentials are supplied, so the local stack needs none.
    """
    import boto3
    from botocore.config import Config

    options: dict[str, Any] = {
        "region_name": settings.aws_region,
        "config": Config(
            retries={"max_attempts": MAX_ATTEMPTS, "mode": "standard"},
            connect_timeout=CONNECT_TIMEOUT_S,
            read_timeout=READ_TIMEOUT_S,
            max_pool_connections=config.pop("max_pool_connections", 32),
            **config,
        ),
    }
    if settings.aws_endpoint_url:
        options["endpoint_url"] = settings.aws_endpoint_url
        if urlparse(settings.aws_endpoint_url).hostname in _LOOPBACK_HOSTS:
            options["aws_access_key_id"] = "testing"
            options["aws_secret_access_key"] = "testing"
    client = boto3.client(service, **options)
    if service == "dynamodb":
        from trainer.store.request_counts import count_dynamodb_request

        client.meta.events.register("before-call.dynamodb", count_dynamodb_request)
    return client


UNAVAILABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "ThrottlingException",
        "InternalServerError",
        "ServiceUnavailable",
    }
)


def is_unavailable(error: BaseException) -> bool:
    """A connection failure, a timeout or throttling that outlasted boto3's retries (not a condition
    failure or a bad request). Connection errors carry no response (or `response=None`)."""
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import HTTPClientError

    if isinstance(error, BotoConnectionError | HTTPClientError | TimeoutError | ConnectionError):
        return True
    response = getattr(error, "response", None)
    error_part = response.get("Error") if isinstance(response, dict) else None
    code = str(error_part.get("Code", "")) if isinstance(error_part, dict) else ""
    return code in UNAVAILABLE_CODES


async def in_thread[T](call: Callable[..., T], *args: Any, deadline: float = STORE_CALL_DEADLINE_S) -> T:
    """A blocking DynamoDB call run in a worker thread; an unreachable, throttling or silent DynamoDB
    is StoreUnavailable, within `deadline` seconds."""
    try:
        async with asyncio.timeout(deadline):
            return await asyncio.to_thread(call, *args)
    except TimeoutError as exc:
        raise StoreUnavailable("the session store did not answer in time") from exc
    except Exception as exc:
        if is_unavailable(exc):
            raise StoreUnavailable("the session store is not reachable") from exc
        raise
