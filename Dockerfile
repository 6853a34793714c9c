# dash-insight: one image for the web processes and the fleet's workers (docs/fleet.md).
#   docker build -t dash-insight .
#   docker compose up            (compose.yaml: Redis with persistence, 2 workers, 2 web)
FROM python:3.12-slim

# The wheel with the fleet (Redis, Celery) and S3 extras; nothing of the build stays behind.
COPY . /src
RUN pip install --no-cache-dir "/src[fleet,s3]" && rm -rf /src

# Never root: a user of its own, its workspace (index lock files, logs) in its home.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin insight
USER insight
WORKDIR /home/insight
ENV DASH_INSIGHT_WORKSPACE=/home/insight/dash-insight \
    PYTHONUNBUFFERED=1

EXPOSE 8080
# Liveness of a web process (/healthz); readiness for a load balancer is /readyz. Workers
# serve no HTTP: compose.yaml turns this off for them.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status != 200)"]
CMD ["python", "-m", "dash_insight.server", "--host", "0.0.0.0", "--port", "8080"]
