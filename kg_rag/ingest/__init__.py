"""Ingest: loaders, cleaning, multi-granularity chunking and the incremental pipeline.

Import the pieces from their modules (``kg_rag.ingest.pipeline`` for :class:`ChunkIngestor`);
this package imports nothing itself, so loading it costs nothing.
"""

__all__: list[str] = []
