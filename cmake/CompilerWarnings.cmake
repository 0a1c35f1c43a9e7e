# Warnings for our own targets only; imported library headers are system includes and stay quiet.
function(dagadvisor_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(DAGADVISOR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
