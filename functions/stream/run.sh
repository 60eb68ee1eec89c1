#!/bin/sh
# POST /agent/stream under the Lambda Web Adapter: LWA proxies the invocation to uvicorn on
# $AWS_LWA_PORT and streams the response body back (AWS_LWA_INVOKE_MODE=response_stream).
export PYTHONPATH="/opt/python:${LAMBDA_TASK_ROOT:-.}${PYTHONPATH:+:$PYTHONPATH}"
exec python -m uvicorn app:create_app --factory \
  --host 0.0.0.0 --port "${AWS_LWA_PORT:-8080}" --no-access-log --timeout-keep-alive 300
