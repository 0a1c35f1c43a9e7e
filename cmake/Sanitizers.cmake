# DAGADVISOR_SANITIZE=ON builds everything (ours, not the system libraries) with ASan + UBSan.
if(DAGADVISOR_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
