//! Chapter Markdown to safe HTML, with mdBook-compatible heading anchors.
