"""deploy/k8s cannot be applied here (no cluster), so it is checked statically: every document parses
and has what the API server requires, the objects refer to each other correctly, the probes reach real
endpoints the way production settings accept, and every environment variable the manifests set is
one the settings read and the README documents."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.urls import resolve

from tests.production.services import ROOT
from tests.production.test_env_documented import _documented, readme_rows, variables_read

K8S = ROOT / "deploy" / "k8s"
# kind -> the apiVersion this layout uses (all GA APIs) and whether the object needs a spec.
KINDS = {
    "Namespace": ("v1", False),
    "ConfigMap": ("v1", False),
    "Secret": ("v1", False),
    "Service": ("v1", True),
    "Deployment": ("apps/v1", True),
    "Job": ("batch/v1", True),
    "HorizontalPodAutoscaler": ("autoscaling/v2", True),
    "Ingress": ("networking.k8s.io/v1", True),
    "Kustomization": ("kustomize.config.k8s.io/v1beta1", False),
}


def _documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc is not None]


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    found = [doc for path in sorted(K8S.glob("*.yaml")) for doc in _documents(path)]
    return [doc for doc in found if doc["kind"] != "Kustomization"]


def _by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in objects if doc["kind"] == kind}


def _pod_specs(objects: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for doc in objects:
        if doc["kind"] in {"Deployment", "Job"}:
            yield doc["metadata"]["name"], doc["spec"]["template"]["spec"]


def _containers(objects: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, pod in _pod_specs(objects):
        for container in pod.get("initContainers", []) + pod["containers"]:
            yield f"{name}/{container['name']}", container


def test_every_file_parses_and_every_object_has_the_required_keys() -> None:
    files = sorted(K8S.glob("*.yaml"))
    assert len(files) >= 9
    for path in files:
        documents = _documents(path)
        assert documents, f"{path.name} is empty"
        for doc in documents:
            kind = doc.get("kind")
            assert kind in KINDS, f"{path.name}: unexpected kind {kind!r}"
            api_version, needs_spec = KINDS[kind]
            assert doc.get("apiVersion") == api_version, f"{path.name} {kind}"
            if kind != "Kustomization":
                assert doc.get("metadata", {}).get("name"), f"{path.name} {kind} has no metadata.name"
            if needs_spec:
                assert isinstance(doc.get("spec"), dict), f"{path.name} {kind} has no spec"
            if kind == "ConfigMap":
                assert all(isinstance(value, str) for value in doc["data"].values()), (
                    "ConfigMap values are text"
                )


def test_kustomization_lists_every_manifest_but_the_secret_example() -> None:
    [kustomization] = _documents(K8S / "kustomization.yaml")
    listed = set(kustomization["resources"])
    on_disk = {path.name for path in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk - {"secret.example.yaml"}
    assert all((K8S / name).is_file() for name in listed)


def test_web_workers_and_beat_run_the_right_processes(objects: list[dict[str, Any]]) -> None:
    deployments = _by_kind(objects, "Deployment")
    assert set(deployments) == {
        "veriscreen-web",
        "veriscreen-worker",
        "veriscreen-sync-worker",
        "veriscreen-beat",
    }

    def command(name: str) -> list[str]:
        return list(deployments[name]["spec"]["template"]["spec"]["containers"][0]["command"])

    web = command("veriscreen-web")
    assert web[0] == "daphne" and web[-1] == "backend.project.asgi:application"
    assert command("veriscreen-worker")[:4] == ["celery", "-A", "backend.project", "worker"]
    assert "-Q" not in command("veriscreen-worker")  # the default (jobs) queue
    sync = command("veriscreen-sync-worker")
    assert sync[sync.index("-Q") + 1] == "market_sync"
    assert command("veriscreen-beat")[:4] == ["celery", "-A", "backend.project", "beat"]
    # Two beats would start every scheduled sync twice; a surge would briefly run two.
    for single in ("veriscreen-beat", "veriscreen-sync-worker"):
        assert deployments[single]["spec"]["replicas"] == 1
        assert deployments[single]["spec"]["strategy"]["type"] == "Recreate"
    [job] = _by_kind(objects, "Job").values()
    assert "manage.py migrate" in job["spec"]["template"]["spec"]["containers"][0]["command"][-1]


def test_selectors_services_and_autoscalers_point_at_real_objects(objects: list[dict[str, Any]]) -> None:
    deployments = _by_kind(objects, "Deployment")
    for name, deployment in deployments.items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), name
    services = _by_kind(objects, "Service")
    web_labels = deployments["veriscreen-web"]["spec"]["template"]["metadata"]["labels"]
    assert services["veriscreen-web"]["spec"]["selector"].items() <= web_labels.items()
    container_ports = {
        port["name"]
        for port in deployments["veriscreen-web"]["spec"]["template"]["spec"]["containers"][0]["ports"]
    }
    assert {port["targetPort"] for port in services["veriscreen-web"]["spec"]["ports"]} <= container_ports
    autoscalers = _by_kind(objects, "HorizontalPodAutoscaler")
    assert {hpa["spec"]["scaleTargetRef"]["name"] for hpa in autoscalers.values()} == {
        "veriscreen-web",
        "veriscreen-worker",
    }
    for hpa in autoscalers.values():
        target = deployments[hpa["spec"]["scaleTargetRef"]["name"]]
        assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        # A CPU utilisation target means nothing without a CPU request.
        resources = target["spec"]["template"]["spec"]["containers"][0]["resources"]
        assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu" and resources["requests"]["cpu"]


def test_the_ingress_routes_http_and_the_websocket_to_web(objects: list[dict[str, Any]]) -> None:
    [ingress] = _by_kind(objects, "Ingress").values()
    services = _by_kind(objects, "Service")
    paths = {
        p["path"]: p["backend"]["service"] for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]
    }
    assert set(paths) == {"/", "/ws/"}
    for backend in paths.values():
        port_names = {port["name"] for port in services[backend["name"]]["spec"]["ports"]}
        assert backend["port"]["name"] in port_names
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-http-version"] == "1.1"  # Upgrade needs 1.1
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(annotations[f"nginx.ingress.kubernetes.io/{timeout}"]) >= 3600
    # The WebSocket routes (Channels') live under the /ws/ prefix the Ingress sends to web.
    from backend.apps.jobs.routing import websocket_urlpatterns

    assert websocket_urlpatterns
    assert all(
        str(route.pattern.regex.pattern).lstrip("^").startswith("ws/") for route in websocket_urlpatterns
    )


def test_probes_reach_the_health_endpoints_as_production_settings_accept(
    objects: list[dict[str, Any]],
) -> None:
    [config] = _by_kind(objects, "ConfigMap").values()
    allowed_hosts = config["data"]["DJANGO_ALLOWED_HOSTS"].split(",")
    [ingress] = _by_kind(objects, "Ingress").values()
    assert {rule["host"] for rule in ingress["spec"]["rules"]} <= set(allowed_hosts)
    web = _by_kind(objects, "Deployment")["veriscreen-web"]["spec"]["template"]["spec"]["containers"][0]
    for probe, view in (("livenessProbe", "health-live"), ("readinessProbe", "health-ready")):
        get = web[probe]["httpGet"]
        assert resolve(get["path"]).url_name == view
        headers = {header["name"]: header["value"] for header in get["httpHeaders"]}
        assert headers["Host"] in allowed_hosts  # else DisallowedHost: 400
        assert headers["X-Forwarded-Proto"] == "https"  # else the SSL redirect: 301


def test_every_variable_the_manifests_set_is_read_by_the_settings_and_documented(
    objects: list[dict[str, Any]],
) -> None:
    read, _ = variables_read()
    rows = readme_rows()
    set_here: dict[str, str] = {}
    for doc in [*objects, *_documents(K8S / "secret.example.yaml")]:
        if doc["kind"] in {"ConfigMap", "Secret"}:
            for name in doc.get("data", {}) | doc.get("stringData", {}):
                set_here[name] = f"{doc['kind']} {doc['metadata']['name']}"
    for where, container in _containers(objects):
        for variable in container.get("env", []):
            set_here[variable["name"]] = where
    assert {
        "DATABASE_URL",
        "REDIS_URL",
        "CLICKHOUSE_URL",
        "DJANGO_SECRET_KEY",
        "VERISCREEN_PRODUCTION",
    } <= set(set_here)
    unknown = sorted(f"{name} ({where})" for name, where in set_here.items() if name not in read)
    assert not unknown, f"set by deploy/k8s but read by no setting: {unknown}"
    undocumented = sorted(name for name in set_here if not _documented(name, rows))
    assert not undocumented, f"set by deploy/k8s but missing from the README table: {undocumented}"


def test_every_container_gets_the_settings_and_only_the_loader_writes(objects: list[dict[str, Any]]) -> None:
    secrets = {doc["metadata"]["name"] for doc in _documents(K8S / "secret.example.yaml")}
    [config] = _by_kind(objects, "ConfigMap")
    for where, container in _containers(objects):
        sources = {
            ref.get("configMapRef", ref.get("secretRef", {})).get("name") for ref in container["envFrom"]
        }
        assert sources == {config, "veriscreen-secrets"}, where
        assert container["image"] == "veriscreen", where
        overrides = {v["name"]: v["valueFrom"]["secretKeyRef"]["name"] for v in container.get("env", [])}
        assert set(overrides.values()) <= secrets
        loader = overrides.get("CLICKHOUSE_URL") == "veriscreen-loader"
        assert loader == (where.split("/")[0] in {"veriscreen-migrate", "veriscreen-sync-worker"}), where
    for _, pod in _pod_specs(objects):
        assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] == 10001
    assert "USER 10001" in (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
