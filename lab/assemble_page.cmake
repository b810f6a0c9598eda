# cmake -DTEMPLATE=lab.html -DSTYLE=lab.css -DDAGRE=dagre.min.js -DCHART=chart.min.js -DHEATMAP=heatmap.js
#       -DCOMMON=common.js -DMODULE=tapegrad_lab.js -DSCRIPT=lab.js -DTRAIN_SCRIPT=train.js
#       -DOUT=page.html -P assemble_page.cmake
# Fills the template's {{STYLE}}, {{DAGRE}}, ... with those files. Inside <script>, "</" could end the
# element early: it is written "<\/", which means the same in JavaScript strings and regexes.
set(scripts DAGRE CHART HEATMAP COMMON MODULE SCRIPT TRAIN_SCRIPT)
foreach(name STYLE ${scripts})
  file(READ ${${name}} text_${name})
endforeach()
foreach(name ${scripts})
  string(REPLACE "</" "<\\/" text_${name} "${text_${name}}")
endforeach()
file(READ ${TEMPLATE} page)
foreach(name STYLE ${scripts})
  string(REPLACE "{{${name}}}" "${text_${name}}" page "${page}")
endforeach()
file(WRITE ${OUT}.tmp "${page}")
file(RENAME ${OUT}.tmp ${OUT})
