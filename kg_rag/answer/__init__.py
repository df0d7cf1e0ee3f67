"""Answering: planner, router, grader, synthesizer, trace, pipeline."""
