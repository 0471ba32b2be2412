"""`manage.py serve [--host H] [--port P]`: the platform under daphne, as the owner of its market data.

In embedded mode the server owns the chdb directory before anything can open it: a second server on
the same directory refuses with one line, and terminal commands send their requests here instead of
opening the store (see backend/apps/marketdata/forwarding.py).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backend.apps.marketdata.forwarding import embedded_directory
from backend.domain.market.ownership import DirectoryInUse, Owner, announce, claim, release


class Command(BaseCommand):
    help = "Serve VeriScreen (HTTP and WebSocket, daphne) as the one owner of its embedded market data."

    # Checked in handle(), once the data is owned: a second server refuses without first spending
    # seconds importing every view.
    requires_system_checks: tuple[str, ...] = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
        parser.add_argument(
            "--port", type=int, default=8000, help="TCP port (default 8000; 0 takes a free one)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host: str = options["host"]
        directory = embedded_directory()
        owner = replace(Owner.of_this_process(), host=host)
        if directory is not None:
            try:
                claim(directory, owner)
            except DirectoryInUse as refusal:
                self.stderr.write(str(refusal))
                sys.exit(1)
        try:
            self.check(display_num_errors=False)
            self._serve(host, options["port"], directory, owner, options["verbosity"])
        finally:
            if directory is not None:
                release(directory)

    def _serve(self, host: str, port: int, directory: Path | None, owner: Owner, verbosity: int) -> None:
        # Imported once the data is owned: the ASGI module sets up every app.
        from asgiref.compatibility import guarantee_single_callable
        from daphne.access import AccessLogGenerator
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        from backend.project.asgi import application

        def listening() -> None:
            # Called by daphne once its socket is bound: from now on terminal commands may forward.
            bound_port = server.listening_addresses[0][1] if server.listening_addresses else port
            if directory is not None:
                announce(directory, replace(owner, port=bound_port))
            shown = f"[{host}]" if ":" in host else host
            where = f" (market data {directory})" if directory is not None else ""
            self.stdout.write(f"VeriScreen serving http://{shown}:{bound_port}/{where}; Ctrl-C stops it")
            self.stdout.flush()

        server = Server(
            application=guarantee_single_callable(application),
            endpoints=build_endpoint_description_strings(host=host, port=port),
            action_logger=AccessLogGenerator(sys.stdout) if verbosity >= 1 else None,
            ready_callable=listening,
            verbosity=verbosity,
        )
        server.run()
        if server.abort_start:  # daphne has logged why it could not listen
            raise CommandError(f"VeriScreen could not listen on {host}:{port}")
