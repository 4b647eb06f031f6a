"""Algorithms that turn data (and a float proposal) into certified weights."""
