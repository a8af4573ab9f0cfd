"""`python manage.py rtp --paytable NAME --rounds N [--strategy best] [--seed S]`: simulate
complete joker draw rounds and report what a paytable version returns (``best``: the solved best
play, with the reference strategy's figure on the same rounds beside it as typical play).

The chunks run on the Celery workers (or here, with ``--in-process``) while a progress bar
follows them; the result goes to the database (the paytable admin shows it), and as JSON and a
PNG chart to ``--out``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from games.engine import joker_draw_rtp as lab
from games.joker_draw import rtp_lab
from games.joker_draw.paytable_selectors import version_named
from games.joker_draw.tasks import dispatch_rtp_run
from payouts.models import RtpRun, RtpRunStatus

POLL_SECONDS = 0.5


class Command(BaseCommand):
    help = "Compute the RTP of a joker draw paytable version by simulating complete rounds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--paytable", required=True, help="the paytable's name")
        parser.add_argument(
            "--paytable-version", type=int, help="its version number (default: the newest)"
        )
        parser.add_argument("--rounds", type=int, required=True)
        parser.add_argument(
            "--strategy",
            default=rtp_lab.REFERENCE,
            help="best (the solved best play), reference, stand, or a JSON file holding a "
            "strategy rule table",
        )
        parser.add_argument("--seed", type=int, help="repeat a run exactly (default: random)")
        parser.add_argument("--chunk-rounds", type=int, help="rounds per chunk of work")
        parser.add_argument(
            "--in-process", action="store_true", help="simulate here instead of on the workers"
        )
        parser.add_argument("--out", default="rtp-results", help="folder for the JSON and PNG")
        parser.add_argument(
            "--timeout", type=float, default=3600.0, help="seconds to wait for the workers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = version_named(options["paytable"], options["paytable_version"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        name, strategy = self._strategy(options["strategy"])
        try:
            run = rtp_lab.start_run(
                version,
                rounds=options["rounds"],
                strategy_name=name,
                strategy=strategy,
                seed=options["seed"],
                chunk_rounds=options["chunk_rounds"],
                dispatch=None if options["in_process"] else dispatch_rtp_run,
            )
        except rtp_lab.RtpRefused as refused:
            raise CommandError(str(refused)) from refused
        with tqdm(total=run.rounds, unit="rounds", unit_scale=True, file=self.stderr) as bar:
            if options["in_process"]:
                run = rtp_lab.run_in_process(run, progress=bar.update)
            else:
                run = self._follow(run, bar, options["timeout"])
        self._write(run, Path(options["out"]))

    def _strategy(self, given: str) -> tuple[str, lab.Strategy | None]:
        if given in rtp_lab.STRATEGIES or given == rtp_lab.BEST:
            return given, None
        path = Path(given)
        if not path.is_file():
            known = ", ".join(rtp_lab.STRATEGIES)
            raise CommandError(f"--strategy: {given!r} is neither {known} nor a JSON file")
        try:
            return path.stem, lab.strategy_from_table(path.stem, json.loads(path.read_text()))
        except (ValueError, json.JSONDecodeError) as error:
            raise CommandError(f"--strategy: {path}: {error}") from error

    def _follow(self, run: RtpRun, bar: tqdm[Any], timeout: float) -> RtpRun:
        deadline = time.monotonic() + timeout
        counted = 0
        while True:
            run.refresh_from_db(fields=["status"])
            done = rtp_lab.chunks_done(run)
            rounds = sum(run.chunk_size(index) for index in range(done))
            bar.update(rounds - counted)
            counted = rounds
            if run.status == RtpRunStatus.DONE:
                run.refresh_from_db()
                return run
            if run.status == RtpRunStatus.FAILED:
                run.refresh_from_db(fields=["result"])
                error = (run.result or {}).get("error", "no error recorded")
                raise CommandError(f"RTP run {run.pk} failed: {error}")
            if done == run.chunk_count:
                # The last chunk merged the run as it committed, after the status was read;
                # this reads the merged run (and merges one whose merge never happened).
                return rtp_lab.finish_run(run.pk)
            if time.monotonic() > deadline:
                raise CommandError(
                    f"RTP run {run.pk}: {done} of {run.chunk_count} chunks after {timeout:.0f} s; "
                    "are the Celery workers running? (--in-process runs without them)"
                )
            time.sleep(POLL_SECONDS)

    def _write(self, run: RtpRun, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        stem = f"rtp-{run.paytable_version.paytable.name}-v{run.paytable_version.number}-{run.pk}"
        (out / f"{stem}.json").write_text(
            json.dumps(
                {
                    "run": run.pk,
                    "paytable_version": str(run.paytable_version),
                    "strategy": run.strategy_name,
                    "rounds": run.rounds,
                    "seed": run.seed,
                    "result": run.result,
                },
                indent=2,
            )
        )
        (out / f"{stem}.png").write_bytes(rtp_lab.rtp_chart_png(run))
        self.stdout.write(f"RTP run {run.pk} of {run.paytable_version}, seed {run.seed}")
        self.stdout.write(rtp_lab.describe(run))
        self.stdout.write(f"written: {out / stem}.json and .png")
