#!/usr/bin/env python3
"""Extract the data.fluid.io manifests of Fluid's documentation.

Usage: extract.py FLUID_REPO_DIR COMMIT OUT_DIR

Reads docs/en and docs/zh of a checkout (or `git archive`) of
github.com/fluid-cloudnative/fluid, takes every fenced code block (and
every `cat <<EOF` here-document in one) that holds a data.fluid.io object,
and writes one YAML file per documentation page into OUT_DIR: the page's
data.fluid.io objects, with the Secrets, ConfigMaps, PVCs and PVs the page
creates beside them. A page whose objects equal an earlier page's (the
Chinese translation of an English page) is written once, naming both.
Blocks that are not valid YAML (fragments, typos) are listed in
OUT_DIR/UNPARSABLE.txt. tests/fluiddocs applies the result.
"""
import json
import os
import re
import sys

import yaml

FLUID_KINDS = {
    "Dataset", "AlluxioRuntime", "JuiceFSRuntime", "JindoRuntime", "ThinRuntime",
    "ThinRuntimeProfile", "DataLoad", "DataMigrate", "DataBackup", "DataProcess",
    "EFCRuntime", "VineyardRuntime", "CacheRuntime", "CacheRuntimeClass",
}
CORE_KINDS = {"Secret", "ConfigMap", "PersistentVolumeClaim", "PersistentVolume"}
HEREDOC = re.compile(r"<<\s*['\"]?EOF['\"]?[^\n]*\n(.*?)\n\s*EOF", re.S)
FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.S)


def page_objects(text):
    objs, bad = [], []
    for i, block in enumerate(FENCE.findall(text)):
        for cand in HEREDOC.findall(block) or [block]:
            if "apiVersion:" not in cand:
                continue
            try:
                docs = list(yaml.safe_load_all(cand))
            except yaml.YAMLError as e:
                if "data.fluid.io" in cand:
                    bad.append((i, str(e).splitlines()[0]))
                continue
            for d in docs:
                if not isinstance(d, dict):
                    continue
                kind, api = d.get("kind"), str(d.get("apiVersion", ""))
                if (kind in FLUID_KINDS and api.startswith("data.fluid.io/")) or (kind in CORE_KINDS and api == "v1"):
                    objs.append(d)
    return objs, bad


def main():
    repo, commit, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    seen, unparsable = {}, []
    for lang in ("en", "zh"):
        root = os.path.join(repo, "docs", lang)
        for dirpath, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if not f.endswith(".md"):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, repo)
                objs, bad = page_objects(open(path, encoding="utf-8").read())
                unparsable += [f"{rel} block {i}: {why}" for i, why in bad]
                if not any(o["kind"] in FLUID_KINDS for o in objs):
                    continue
                key = json.dumps(objs, sort_keys=True)
                if key in seen:
                    seen[key].append(rel)
                    continue
                seen[key] = [rel]
    for key, sources in seen.items():
        objs = json.loads(key)
        name = re.sub(r"[^a-z0-9]+", "-", sources[0].lower().removeprefix("docs/").removesuffix(".md")).strip("-")
        with open(os.path.join(out, name + ".yaml"), "w", encoding="utf-8") as w:
            w.write(f"# Source: github.com/fluid-cloudnative/fluid@{commit}\n")
            for s in sources:
                w.write(f"#   {s}\n")
            w.write("# Extracted by hack/fluidcorpus/extract.py; the objects as the page gives them.\n")
            w.write(yaml.safe_dump_all(objs, sort_keys=False, allow_unicode=True))
    with open(os.path.join(out, "UNPARSABLE.txt"), "w", encoding="utf-8") as w:
        w.write(f"# Blocks of github.com/fluid-cloudnative/fluid@{commit} docs that hold data.fluid.io\n")
        w.write("# objects but are not valid YAML (fragments, typos): nobody can apply them.\n")
        w.write("\n".join(unparsable) + "\n")


if __name__ == "__main__":
    main()
