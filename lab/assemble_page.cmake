# cmake -DTEMPLATE=lab.html -DSTYLE=lab.css -DSCRIPT=lab.js -DMODULE=tapegrad_lab.js -DDAGRE=dagre.min.js
#       -DOUT=page.html -P assemble_page.cmake
# Fills the template's {{STYLE}}, {{DAGRE}}, {{MODULE}} and {{SCRIPT}}. Inside <script>, "</" could end the
# element early: it is written "<\/", which means the same in JavaScript strings and regexes.
foreach(name STYLE DAGRE MODULE SCRIPT)
  file(READ ${${name}} text_${name})
endforeach()
foreach(name DAGRE MODULE SCRIPT)
  string(REPLACE "</" "<\\/" text_${name} "${text_${name}}")
endforeach()
file(READ ${TEMPLATE} page)
foreach(name STYLE DAGRE MODULE SCRIPT)
  string(REPLACE "{{${name}}}" "${text_${name}}" page "${page}")
endforeach()
file(WRITE ${OUT}.tmp "${page}")
file(RENAME ${OUT}.tmp ${OUT})
