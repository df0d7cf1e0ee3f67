"""Stores: LanceDB chunks, graph stores behind one protocol, community summary index."""
