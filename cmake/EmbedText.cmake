# cmake -DINPUT=file -DOUTPUT=file.inc [-DNAME=identifier] -P EmbedText.cmake
# Writes `static const char <NAME>[] = R"...(<contents>)...";` (NAME: kHostABITypesText).
if(NOT NAME)
  set(NAME kHostABITypesText)
endif()
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "static const char ${NAME}[] = R\"tensorium_embed(${text})tensorium_embed\";\n")
