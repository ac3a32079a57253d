"""A small client for Superset's REST API: login, CSRF, and the few calls the tooling makes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

from cheetah_dashboards.errors import DashboardsError

TIMEOUT_S = 120.0


@dataclass
class SupersetApi:
    url: str
    session: requests.Session

    @classmethod
    def login(cls, url: str, username: str, password: str) -> "SupersetApi":
        session = requests.Session()
        response = session.post(f"{url}/api/v1/security/login", json={
            "username": username, "password": password, "provider": "db", "refresh": False,
        }, timeout=TIMEOUT_S)
        if response.status_code != 200:
            raise DashboardsError(
                f"login to Superset at {url} as {username!r} failed (HTTP {response.status_code}: "
                f"{response.text[:200]}); check the admin password of the state directory"
            )
        session.headers["Authorization"] = f"Bearer {response.json()['access_token']}"
        csrf = session.get(f"{url}/api/v1/security/csrf_token/", timeout=TIMEOUT_S)
        csrf.raise_for_status()
        session.headers["X-CSRFToken"] = csrf.json()["result"]
        session.headers["Referer"] = url
        return cls(url=url, session=session)

    def call(self, method: str, path: str, what: str, **kwargs: Any) -> Any:
        response = self.session.request(method, f"{self.url}{path}", timeout=TIMEOUT_S, **kwargs)
        if response.status_code >= 400:
            raise DashboardsError(f"{what}: HTTP {response.status_code} from {method} {path}: {response.text[:500]}")
        return response.json()

    def dashboards(self) -> list[dict[str, Any]]:
        query = "(page_size:100,columns:!(id,dashboard_title,slug,uuid))"
        return list(self.call("GET", f"/api/v1/dashboard/?q={query}", "listing dashboards")["result"])

    def dashboard_charts(self, id_or_slug: int | str) -> list[dict[str, Any]]:
        return list(self.call("GET", f"/api/v1/dashboard/{id_or_slug}/charts", "listing charts")["result"])

    def chart(self, chart_id: int) -> dict[str, Any]:
        return dict(self.call("GET", f"/api/v1/chart/{chart_id}", f"reading chart {chart_id}")["result"])

    def save_query_context(self, chart_id: int, query_context: str) -> None:
        self.call("PUT", f"/api/v1/chart/{chart_id}", f"saving the query context of chart {chart_id}",
                  json={"query_context": query_context, "query_context_generation": True})

    def chart_data(self, chart_id: int) -> dict[str, Any]:
        """The saved chart's data (GET /api/v1/chart/<id>/data/), as the API returns it."""
        response = self.session.get(f"{self.url}/api/v1/chart/{chart_id}/data/", params={"force": "true"},
                                    timeout=TIMEOUT_S)
        body: dict[str, Any] = response.json() if response.headers.get("content-type", "").startswith(
            "application/json") else {"message": response.text[:500]}
        body["_status"] = response.status_code
        return body

    def datasets(self) -> list[dict[str, Any]]:
        query = "(page_size:100,columns:!(id,table_name,sql))"
        return list(self.call("GET", f"/api/v1/dataset/?q={query}", "listing datasets")["result"])

    def saved_queries(self) -> list[dict[str, Any]]:
        query = "(page_size:100,columns:!(id,label,sql,database.id,schema))"
        return list(self.call("GET", f"/api/v1/saved_query/?q={query}", "listing saved queries")["result"])

    def run_sql(self, database_id: int, sql: str, schema: str | None) -> dict[str, Any]:
        return dict(self.call("POST", "/api/v1/sqllab/execute/", "running SQL in SQL Lab", json={
            "database_id": database_id, "sql": sql, "schema": schema, "runAsync": False,
            "queryLimit": 1000,
        }))
