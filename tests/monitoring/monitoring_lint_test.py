#!/usr/bin/env python3
"""Unit tests of monitoring_lint.py: the tokenizer finds metric names, and each check reports a
planted problem (so a clean run of the real files means something)."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import monitoring_lint as lint  # noqa: E402


class MetricNames(unittest.TestCase):
    def test_selectors_functions_and_clauses(self):
        expr = ('histogram_quantile(0.95, sum by (le, profile) (rate(foo_bucket{le="1", a=~"b|c"}[5m])))'
                ' / on (cluster) group_left (node) bar offset 5m > bool 1e3 and baz:rec:sum')
        self.assertEqual(lint.metric_names(expr), {"foo_bucket", "bar", "baz:rec:sum"})

    def test_strings_are_not_names(self):
        self.assertEqual(lint.metric_names('label_replace(x, "dst", "$1", "src", "(.*)")'), {"x"})

    def test_grafana_variables_substituted(self):
        self.assertEqual(lint.substitute('rate(x{c=~"$cluster"}[$__rate_interval])'), 'rate(x{c=~".*"}[1m])')


class Checks(unittest.TestCase):
    def test_unknown_metric_reported(self):
        problems = lint.unknown_metrics([("p", "rate(known_total[1m]) + hist_bucket + nope")],
                                        {"known_total", "hist"})
        self.assertEqual(len(problems), 1)
        self.assertIn("nope", problems[0])

    def test_unparsable_expression_reported(self):
        with tempfile.TemporaryDirectory() as d:
            problems = lint.promtool_parse([("good", "up"), ("bad", "sum(up")], pathlib.Path(d))
        self.assertTrue(problems)
        self.assertTrue(any("bad" in p for p in problems), problems)

    def test_parsable_expressions_pass(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(lint.promtool_parse([("good", 'sum by (a) (rate(up[1m]))')], pathlib.Path(d)), [])


if __name__ == "__main__":
    unittest.main()
