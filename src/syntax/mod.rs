//! Template source to AST: the lexer, the parser and spans.
