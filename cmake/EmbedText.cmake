# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedText.cmake
# Writes `static const char kHostABITypesText[] = R"...(<contents>)...";`.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "static const char kHostABITypesText[] = R\"tensorium_embed(${text})tensorium_embed\";\n")
