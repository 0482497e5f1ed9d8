"""Bundled JSON schemas (package data)."""
