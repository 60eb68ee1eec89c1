"""CloudFormation custom resource `Custom::SnsPlatformApplication` -> an SNS platform application (APNs,
APNs sandbox, FCM) from the credentials in a Secrets Manager secret (trainer.jobs.push_apps). Runs only
while the stack is created, updated or deleted.
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.push_apps import Clients, handle_custom_resource
    from trainer.observability import logger, tracer
    from trainer.settings import PushAppsSettings

    clients = Clients.from_settings(PushAppsSettings.from_environment())


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    properties = event.get("ResourceProperties") or {}
    logger.append_keys(
        request_type=event.get("RequestType"),
        logical_resource_id=event.get("LogicalResourceId"),
        platform=properties.get("Platform"),
    )
    result = handle_custom_resource(event, context, clients)
    logger.info("platform application request done", extra=result)
    return result
