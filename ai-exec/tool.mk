TOOL_LIBS_ai-exec = $(JQ_LIBS)
