#!/usr/bin/env bash
# run_with_junit.sh XSD XML COMMAND...: runs a study with --junit XML and passes its exit status
# on, unless the JUnit report is missing or does not validate against XSD (exit status 3).
set -uo pipefail
xsd=$1 xml=$2
shift 2
rm -f "$xml"
"$@" --junit "$xml"
status=$?
if ! xmllint --noout --schema "$xsd" "$xml"; then
  echo "run_with_junit: the JUnit report $xml is missing or does not validate against $xsd"
  exit 3
fi
exit $status
