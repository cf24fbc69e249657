"""The deployment files describe the same system as the code (no Docker engine runs here, so they are
checked as data: every service, worker and the relay present, commands the CLI knows, ports that match)."""

from __future__ import annotations

import itertools
from pathlib import Path

import yaml

from services.cli import SERVICES
from shared.config import SERVICE_PORTS

ROOT = Path(__file__).resolve().parents[2]


def test_compose_runs_every_service_worker_relay_and_proxy() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    for name in SERVICES:
        assert services[name]["command"][:3] == ["speltafel", "serve", name]
        assert str(SERVICE_PORTS[name]) in services[name]["command"]
        assert services[f"worker-{name}"]["command"] == ["speltafel", "worker", name]
    assert services["relay"]["command"] == ["speltafel", "relay"]
    assert services["worker-bots"]["command"] == ["speltafel", "worker", "bots"]
    assert compose["x-app"]["environment"]["BOTS_SECRET"]
    assert {"postgres", "redis", "proxy", "migrate"} <= set(services)
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    for name in SERVICES:
        assert f"location /{name}/" in nginx and f"server {name}:{SERVICE_PORTS[name]}" in nginx


def test_kubernetes_manifests_scale_every_role_against_external_backends() -> None:
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "speltafel.yaml").read_text()) if d]
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    for name in SERVICES:
        assert ("Deployment", name) in kinds and ("Service", name) in kinds
        assert ("Deployment", f"workers-{name}") in kinds
    assert ("Deployment", "outbox-relay") in kinds and ("Ingress", "speltafel") in kinds
    assert ("Deployment", "workers-bots") in kinds
    assert ("Job", "speltafel-migrate") in kinds
    secret = next(d for d in docs if d["kind"] == "Secret")
    assert {"DATABASE_URL", "REDIS_URL", "ADMIN_TOKEN", "BOTS_SECRET"} <= set(secret["stringData"])


def _aof_everysec(args: list[str]) -> bool:
    pairs = dict(itertools.pairwise(args))
    return pairs.get("--appendonly") == "yes" and pairs.get("--appendfsync") == "everysec"


def test_compose_and_kubernetes_run_redis_with_an_append_only_file_synced_every_second() -> None:
    """Queued jobs survive a Redis restart (issue 14 item 4)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert _aof_everysec(compose["services"]["redis"]["command"])
    assert "redisdata:/data" in compose["services"]["redis"]["volumes"]
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "speltafel.yaml").read_text()) if d]
    redis = next(d for d in docs if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "redis")
    container = redis["spec"]["template"]["spec"]["containers"][0]
    assert _aof_everysec(container["args"]) and redis["spec"]["volumeClaimTemplates"]


def test_the_proxy_times_out_slow_clients_and_every_http_deployment_gets_the_http_settings() -> None:
    """Issue 14 item 7 / issue 15 item 1: nginx reads whole requests with header and body timeouts; the
    services behind a proxy trust one X-Forwarded-For hop and take their CORS origins from configuration."""
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    for directive in ("client_header_timeout", "client_body_timeout", "client_max_body_size",
                      "proxy_request_buffering on", "X-Forwarded-For", "application/problem+json"):
        assert directive in nginx, directive
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in SERVICES:
        assert "--workers" not in compose[name]["command"]
        assert compose[name]["environment"]["PROXY_HOPS"] == "1"
        assert "CORS_ORIGINS" in compose[name]["environment"]
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "speltafel.yaml").read_text()) if d]
    http = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "speltafel-http")
    assert {"CORS_ORIGINS", "PROXY_HOPS", "HTTP_THREADS"} <= set(http["data"])
    for name in SERVICES:
        deployment = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == name)
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert {"configMapRef": {"name": "speltafel-http"}} in container["envFrom"]


def test_compose_and_kubernetes_serve_the_web_client_beside_the_apis() -> None:
    """Issue 16 item 1: the web client at / behind the same base URL as the APIs, its modules as JavaScript."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert compose["proxy"]["build"]["dockerfile"] == "deploy/web.Dockerfile"
    dockerfile = (ROOT / "deploy" / "web.Dockerfile").read_text()
    assert "npm ci" in dockerfile and "package-lock.json" in dockerfile and "/usr/share/nginx/html/vendor" in dockerfile
    for conf in ("nginx.conf", "web-nginx.conf"):
        nginx = (ROOT / "deploy" / conf).read_text()
        assert "root /usr/share/nginx/html;" in nginx and "try_files /index.html" in nginx, conf
        assert "default_type text/javascript" in nginx, conf  # .mjs is missing from some mime.types
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "speltafel.yaml").read_text()) if d]
    web = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "web")
    assert web["spec"]["template"]["spec"]["containers"][0]["image"] == "speltafel-web:latest"
    assert ("Service", "web") in {(d["kind"], d["metadata"]["name"]) for d in docs}
    ingress = next(d for d in docs if d["kind"] == "Ingress" and d["metadata"]["name"] == "speltafel-web")
    path = ingress["spec"]["rules"][0]["http"]["paths"][0]
    assert path["path"] == "/" and path["backend"]["service"]["name"] == "web"


def test_compose_kubernetes_and_nginx_route_live_streams_to_the_stream_gateway() -> None:
    """Issue 19 item 4: `/games/v1/games/<id>/events/stream` goes to `speltafel streams` everywhere."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert compose["streams"]["command"] == ["speltafel", "streams", "--port", "8005"]
    assert "streams" in compose["proxy"]["depends_on"]
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server streams:8005" in nginx and "location ~ ^/games/(v1/games/[^/]+/events/stream)$" in nginx
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "speltafel.yaml").read_text()) if d]
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert ("Deployment", "streams") in kinds and ("Service", "streams") in kinds
    ingress = next(d for d in docs if d["kind"] == "Ingress" and d["metadata"]["name"] == "speltafel")
    paths = {p["path"]: p["backend"]["service"]["name"] for p in ingress["spec"]["rules"][0]["http"]["paths"]}
    assert paths["/games(/)(v1/games/[^/]+/events/stream)"] == "streams"
