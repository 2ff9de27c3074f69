"""Lay out a runnable copy of the scan project: `python prepare.py DEST [--package PATH]`.

Copies this folder to DEST, the per-rule suite's seed CSVs (../seeds/*.csv) to DEST/seeds, injects
each seed's `config` (column_types) from ../seeds/seeds.yml into DEST/seeds/scans.yml, and points
packages.yml at the dataplex_dq package (this checkout by default) with an absolute path.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
SEEDS = HERE.parent / "seeds"
PACKAGE = HERE.parents[1]


def prepare(dest: Path, package: Path = PACKAGE) -> Path:
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(
        HERE,
        dest,
        ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb", "__pycache__", "prepare.py"),
    )
    for csv in sorted(SEEDS.glob("*.csv")):
        shutil.copy2(csv, dest / "seeds" / csv.name)
    configs = {s["name"]: s.get("config") or {} for s in yaml.safe_load((SEEDS / "seeds.yml").read_text())["seeds"]}
    scans_path = dest / "seeds" / "scans.yml"
    scans = yaml.safe_load(scans_path.read_text())
    for seed in scans["seeds"]:
        column_types = (configs.get(seed["name"]) or {}).get("column_types")
        if column_types:
            seed.setdefault("config", {})["column_types"] = column_types
    scans_path.write_text(yaml.safe_dump(scans, sort_keys=False, allow_unicode=True, width=1000))
    (dest / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(Path(package).resolve())}]}))
    return dest


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--package", type=Path, default=PACKAGE)
    args = parser.parse_args()
    print(prepare(args.dest, args.package))
