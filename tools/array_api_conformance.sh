#!/usr/bin/env bash
# Runs the data-apis array API conformance suite (https://github.com/data-apis/array-api-tests) against
# yaten.array_api and prints what failed beyond the suite's own known defects (tools/array_api_xfails.txt).
#
#   tools/array_api_conformance.sh /path/to/array-api-tests [pytest options...]
#
# The checkout needs its `array-api` submodule (the standard's text, which the suite parses for signatures and
# special cases): `git clone --recursive`. The suite needs hypothesis and ndindex (pip install ndindex); its
# defaults are 100 examples per test (--max-examples N to change). Exit status: 0 when nothing failed beyond the
# listed defects.
set -euo pipefail
suite=${1:?usage: tools/array_api_conformance.sh /path/to/array-api-tests [pytest options...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
export ARRAY_API_TESTS_MODULE=yaten.array_api
cd "$suite"
python -m pytest -p no:cacheprovider -q --xfails-file="$here/array_api_xfails.txt" "$@" array_api_tests
