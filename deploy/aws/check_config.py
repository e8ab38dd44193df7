#!/usr/bin/python3
"""check_config.py CLUSTER.yaml [SCHEMA.json]: checks an AWS ParallelCluster 3 configuration
offline against deploy/aws/parallelcluster3.schema.json (JSON Schema draft 7), with Debian's
python3-yaml and python3-jsonschema. Prints every violation with its path and exits 1 when there is
one; prints "ok" and exits 0 otherwise. `pcluster create-cluster --dryrun true` remains the final,
online check."""
import json
import os
import sys

import jsonschema
import yaml


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    schema_path = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "parallelcluster3.schema.json")
    with open(schema_path) as f:
        schema = json.load(f)
    with open(argv[1]) as f:
        try:
            config = yaml.safe_load(f)
        except yaml.YAMLError as e:
            print(f"{argv[1]}: not YAML: {e}")
            return 1
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    for e in errors:
        path = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{argv[1]}: {path}: {e.message}")
    if not errors:
        print(f"{argv[1]}: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
