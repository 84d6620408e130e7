// Text for an XML document: what prun's --output xml and the DVM's XML reports (--display ...
// with --output xml) put inside elements and attributes.
#pragma once

#include <string>
#include <string_view>

namespace prte::util {

// `text` with &, <, > and control characters as XML character references (PMIx's --output xml);
// `attribute`: '"' too, for an attribute's value.
std::string xml_escape(std::string_view text, bool attribute = false);

}  // namespace prte::util
