// Copyright (c) quickfixengine.org  All rights reserved.
//
// This file may be distributed under the terms of the quickfixengine.org
// license as defined by quickfixengine.org and appearing in the file
// LICENSE included in the packaging of this file.
//
// This file is provided AS IS with NO WARRANTY OF ANY KIND, INCLUDING
// THE WARRANTY OF DESIGN, MERCHANTABILITY AND FITNESS FOR A
// PARTICULAR PURPOSE.
//
// See http://www.quickfixengine.org/LICENSE for licensing information.
//
// Contact ask@quickfixengine.org if any conditions of this licensing
// are not clear to you.

package quickfix

// FIX BeginString string values.
const (
	BeginStringFIX40  = "FIX.4.0"
	BeginStringFIX41  = "FIX.4.1"
	BeginStringFIX42  = "FIX.4.2"
	BeginStringFIX43  = "FIX.4.3"
	BeginStringFIX44  = "FIX.4.4"
	BeginStringFIXT11 = "FIXT.1.1"
)
