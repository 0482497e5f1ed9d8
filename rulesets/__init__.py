"""Bundled rulesets (package data)."""
