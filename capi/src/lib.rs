//! The C ABI of chatcodec (see include/chatcodec.h and docs/c-api.md).
