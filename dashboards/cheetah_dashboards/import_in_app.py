"""Runs inside Superset's app context (a child process of `import`): imports one bundle zip
and points the warehouse database at the URI in $CHEETAH_WAREHOUSE_SQLALCHEMY_URI.

Done in-process rather than through `superset import-dashboards` + `superset set-database-uri`
so that the warehouse password never appears on a command line, and so that a failed import
reports Superset's own validation messages instead of "check the log".
"""

from __future__ import annotations

import os
import sys
from zipfile import ZipFile


def _metadata(model: str) -> str:
    return f"version: 1.0.0\ntype: {model}\ntimestamp: '2026-11-22T00:00:00+00:00'\n"


def main(argv: list[str]) -> int:
    dashboards_zip, queries_zip, database_name, admin = argv
    uri = os.environ["CHEETAH_WAREHOUSE_SQLALCHEMY_URI"]

    from flask import g

    from superset.app import create_app

    app = create_app()
    with app.app_context():
        from superset import db, security_manager
        from superset.commands.dashboard.importers.dispatcher import ImportDashboardsCommand
        from superset.commands.exceptions import CommandException, CommandInvalidError
        from superset.commands.importers.v1.utils import get_contents_from_bundle
        from superset.commands.query.importers.dispatcher import ImportSavedQueriesCommand
        from superset.utils.database import get_or_create_db

        from superset.commands.chart.importers.dispatcher import ImportChartsCommand
        from superset.commands.dataset.importers.dispatcher import ImportDatasetsCommand

        g.user = security_manager.find_user(username=admin)
        try:
            with ZipFile(dashboards_zip) as bundle:
                contents = get_contents_from_bundle(bundle)
            # A dashboard import never overwrites the datasets and charts it carries, so a changed
            # bundle would not take effect: import each kind with overwrite first (the bundle is the
            # source of truth), under the metadata type each importer insists on.
            for command, model in ((ImportDatasetsCommand, "SqlaTable"), (ImportChartsCommand, "Slice"),
                                   (ImportDashboardsCommand, "Dashboard")):
                typed = {**contents, "metadata.yaml": _metadata(model)}
                command(typed, overwrite=True).run()
            if queries_zip != "-":
                with ZipFile(queries_zip) as bundle:
                    ImportSavedQueriesCommand(get_contents_from_bundle(bundle), overwrite=True).run()
        except CommandInvalidError as error:
            print(f"import of {dashboards_zip} refused: {error.normalized_messages()}", file=sys.stderr)
            return 1
        except CommandException as error:
            print(f"import of {dashboards_zip} failed: {error}", file=sys.stderr)
            return 1
        get_or_create_db(database_name, uri, always_create=False)
        db.session.commit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
