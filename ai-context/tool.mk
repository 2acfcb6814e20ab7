TOOL_LIBS_ai-context = -lm
