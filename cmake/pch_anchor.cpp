// A source for the targets that only hold precompiled headers (cmake/pch.cmake).
